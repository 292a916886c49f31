import { type BlockLimits, resolveBlockLimits } from '@tracewarden/core';
import { InvalidArgumentError, Option } from 'commander';
import { CliError } from '../errors/index.js';
import { inputFormats } from '../formats/index.js';

/**
 * `--format <format>`: skip detection.
 */
export function formatOption(): Option {
  return new Option(
    '-f, --format <format>',
    'read the input as this format instead of detecting it per file',
  ).choices(inputFormats);
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
