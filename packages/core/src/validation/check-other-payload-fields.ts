import type { TraceError } from '../errors/index.js';
import { checkSerialisable } from './check-serialisable.js';
import type { BlockPath, DraftBlock } from './draft-block.js';

/**
 * Every payload field not checked by size (`name`, a tool call's positional `args`, fields a
 * client adds) must be writable as JSON too: a sink serialises the whole block.
 */
export function checkOtherPayloadFields(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  payload: Record<string, unknown>,
  subType: unknown,
): void {
  const limited = limitedFieldOf(subType);
  const isResult = subType === 'TOOL_RESULT';
  for (const key in payload) {
    if (key === limited || (isResult && (key === 'output' || key === 'delta'))) continue;
    const value = payload[key];
    if (typeof value === 'object' || typeof value === 'bigint')
      checkSerialisable(errors, draft, path, `payload.${key}`, value, false);
  }
}

/** The payload field each sub type checks by size (and so already for its JSON form). */
export function limitedFieldOf(subType: unknown): string | undefined {
  switch (subType) {
    case 'MESSAGE':
      return 'content';
    case 'TOOL_CALL':
      return 'arguments';
    case 'THINK':
      return 'text';
    default:
      return undefined;
  }
}
