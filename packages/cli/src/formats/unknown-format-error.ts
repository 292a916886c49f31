import { CliError } from '../errors/index.js';

/**
 * @internal The error for a file whose first record matches no input format and no `--format`
 * was given.
 * @param file - the file
 * @param line - the line of that record, in a JSONL file
 */
export function unknownFormatError(file: string, line?: number): CliError {
  return new CliError({
    code: 'CLI_UNKNOWN_FORMAT',
    file,
    ...(line === undefined ? {} : { line }),
    message: `${file}${line === undefined ? '' : `:${line}`}: cannot tell the format; expected chat events ([{"role": ...}]), a dataset ({"traces": [...]}), blocks ({"sub_type": ...}) or trace entries ({"call": ..., "result": ...}); pass --format events|dataset|blocks|entries to choose`,
  });
}
