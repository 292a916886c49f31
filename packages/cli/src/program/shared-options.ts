import { type BlockLimits, resolveBlockLimits } from '@tracewarden/core';
import { InvalidArgumentError, Option } from 'commander';
import { CliError } from '../errors/index.js';
import { inputFormats } from '../formats/index.js';

/**
 * An option whose value must be one of `choices` (listed in the help as commander's `.choices`
 * lists them), refused with the choices and, for a value `hint` knows, what was likely meant:
 * `--format` is the input format in most commands but the report format in `check`, so a
 * value of the other meaning is answered with the option that takes it.
 * @param option - the option
 * @param choices - the values it takes
 * @param hint - what to do instead, for a value it recognises
 * @returns the option
 */
export function choicesWithHint(
  option: Option,
  choices: readonly string[],
  hint: (value: string) => string | undefined,
): Option {
  return option.choices(choices).argParser((value: string) => {
    if (choices.includes(value)) return value;
    const instead = hint(value);
    throw new InvalidArgumentError(
      `Allowed choices are ${choices.join(', ')}.${instead === undefined ? '' : ` ${instead}`}`,
    );
  });
}

/** Values of `--format` that name an output, not an input format. */
const outputFormats = new Set(['json', 'jsonl', 'text']);

/**
 * `--format <format>`: skip detection.
 * @param outputHint - what to use for an output format instead (`--format json`), when the
 *   command has one; @default 'for JSON output use --json'
 */
export function formatOption(outputHint = 'for JSON output use --json'): Option {
  return choicesWithHint(
    new Option(
      '-f, --format <format>',
      'read the input as this format instead of detecting it per file',
    ),
    inputFormats,
    (value) =>
      outputFormats.has(value.toLowerCase())
        ? `--format is the format of the input; ${outputHint}.`
        : undefined,
  );
}

/**
 * Parses a positive integer option value.
 */
export function parsePositiveInteger(value: string): number {
  const number = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number <= 0) {
    throw new InvalidArgumentError(`expected a positive whole number, got "${value}".`);
  }
  return number;
}

/**
 * `--max-line-bytes <n>`: the JSONL line limit.
 */
export function maxLineBytesOption(): Option {
  return new Option(
    '--max-line-bytes <bytes>',
    'longest JSONL line read; longer lines are reported and skipped (default: 64 MiB)',
  ).argParser(parsePositiveInteger);
}

/** Traces of a JSONL block file kept open at once, by default. */
export const defaultMaxOpenTraces = 256;

/**
 * `--max-open-traces <count>`: how many traces of a JSONL block file are kept open at once.
 * @param purpose - what an open trace is kept for
 */
export function maxOpenTracesOption(purpose: string): Option {
  return new Option(
    '--max-open-traces <count>',
    `traces of a JSONL block file kept open ${purpose}; raise it for files that interleave more traces than this (default: ${defaultMaxOpenTraces})`,
  ).argParser(parsePositiveInteger);
}

/**
 * The block byte limits from the environment (`LIMIT_MSG_BYTES`, ...), as a usage error when
 * a variable is not a positive integer.
 */
export function limitsFrom(
  env: Readonly<Record<string, string | undefined>>,
): Readonly<BlockLimits> {
  try {
    return resolveBlockLimits(undefined, env);
  } catch (error) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: error instanceof Error ? error.message : String(error),
      cause: error,
    });
  }
}
