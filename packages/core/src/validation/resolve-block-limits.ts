import { BlockLimitError } from './block-limit-error.js';
import { defaultBlockLimits } from './default-block-limits.js';
import type { BlockLimits } from './types.js';

/** The environment variable of each limit (seed 002). */
const environmentVariables: Readonly<Record<keyof BlockLimits, string>> = {
  messageBytes: 'LIMIT_MSG_BYTES',
  thinkBytes: 'LIMIT_THINK_BYTES',
  toolArgumentsBytes: 'LIMIT_TOOL_ARGS_BYTES',
  toolResultBytes: 'LIMIT_TOOL_RESULT_BYTES',
};

const limitNames = Object.keys(environmentVariables) as (keyof BlockLimits)[];

function processEnvironment(): Readonly<Record<string, string | undefined>> {
  // globalThis lookup so the module also loads where `process` does not exist (edge, browsers)
  return (
    (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {}
  );
}

/**
 * Resolves the byte limits in force: explicit options win over environment variables
 * (`LIMIT_MSG_BYTES`, `LIMIT_THINK_BYTES`, `LIMIT_TOOL_ARGS_BYTES`, `LIMIT_TOOL_RESULT_BYTES`),
 * which win over {@link defaultBlockLimits}. An empty environment variable counts as unset.
 *
 * @param overrides - limits to force, in bytes (positive integers)
 * @param env - the environment to read
 * @default env `process.env`, read when called (never at import)
 * @returns a frozen, complete set of limits
 * @throws {@link BlockLimitError} when a variable or option is not a positive integer
 * @example
 * ```ts
 * resolveBlockLimits({ thinkBytes: 8192 }, { LIMIT_MSG_BYTES: '1000' });
 * // { messageBytes: 1000, thinkBytes: 8192, toolArgumentsBytes: 262144, toolResultBytes: 2097152 }
 * ```
 */
export function resolveBlockLimits(
  overrides?: Partial<BlockLimits>,
  env: Readonly<Record<string, string | undefined>> = processEnvironment(),
): Readonly<BlockLimits> {
  const limits: BlockLimits = { ...defaultBlockLimits };
  for (const name of limitNames) {
    const variable = environmentVariables[name];
    const text = env[variable];
    if (text !== undefined && text.trim() !== '') {
      const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(value) || value <= 0) {
        throw new BlockLimitError({
          message: `Environment variable ${variable} must be a positive integer number of bytes, got ${JSON.stringify(text)}; set it to e.g. ${defaultBlockLimits[name]} or unset it`,
          setting: variable,
          value: text,
        });
      }
      limits[name] = value;
    }
    const option = overrides?.[name];
    if (option !== undefined) {
      if (typeof option !== 'number' || !Number.isSafeInteger(option) || option <= 0) {
        throw new BlockLimitError({
          message: `Option limits.${name} must be a positive integer number of bytes, got ${String(option)}; pass e.g. ${defaultBlockLimits[name]} or omit it`,
          setting: name,
          value: option,
        });
      }
      limits[name] = option;
    }
  }
  return Object.freeze(limits);
}
