import { CliError } from '../errors/index.js';
import { isObject } from './is-object.js';

// A wrapper the readers do not know (`{ "trace": [...] }`, `{ "data": { "messages": [...] } }`)
// gets a hint naming the key, and how to take the trace out of it.
function wrapperHint(value: unknown): string {
  if (!isObject(value)) return '';
  for (const [key, inner] of Object.entries(value)) {
    const path = `.[${JSON.stringify(key)}]`;
    if (Array.isArray(inner) && isObject(inner[0]) && typeof inner[0].role === 'string')
      return `; its events look to be under "${key}", which is not read: put them under "messages" (e.g. jq '{messages: ${path}}')`;
    if (isObject(inner) && (Array.isArray(inner.messages) || Array.isArray(inner.events)))
      return `; its trace looks to be under "${key}": take it out (e.g. jq '${path}')`;
  }
  return '';
}

/**
 * @internal The error for a file whose first record matches no input format and no `--format`
 * was given.
 * @param file - the file
 * @param line - the line of that record, in a JSONL file
 * @param value - the record, for a hint when it wraps a trace in a key that is not read
 */
export function unknownFormatError(file: string, line?: number, value?: unknown): CliError {
  return new CliError({
    code: 'CLI_UNKNOWN_FORMAT',
    file,
    ...(line === undefined ? {} : { line }),
    message: `${file}${line === undefined ? '' : `:${line}`}: cannot tell the format; expected chat events ([{"role": ...}]), a dataset ({"traces": [...]}), blocks ({"sub_type": ...}) or trace entries ({"call": ..., "result": ...}); pass --format events|dataset|blocks|entries to choose${wrapperHint(value)}`,
  });
}
