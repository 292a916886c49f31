import type { TraceError } from '../errors/index.js';
import { bytesOver, reportTooLarge } from './check-limited-field.js';
import { checkSerialisable } from './check-serialisable.js';
import type { BlockPath, DraftBlock } from './draft-block.js';
import { parsedText } from './parsed-text.js';
import type { BlockLimits } from './types.js';

/**
 * Every payload field besides the one its sub type measures (a MESSAGE's `name` or
 * `tool_calls`, a THINK's `signature`, a tool call's positional `args`, fields a client adds)
 * must be writable as JSON (a sink serialises the whole block) and fit the sub type's byte
 * limit: seed 002's limit is the payload's ("either the payload fits, or the request fails"),
 * so no field of it may carry more unbounded. What the parsed text already proves is skipped.
 */
export function checkOtherPayloadFields(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  payload: Record<string, unknown>,
  subType: unknown,
  limits: BlockLimits,
): void {
  const writable = !parsedText.serialisable;
  const limit = limitOf(subType, limits);
  // parsed from a short enough text: every value fits
  const sized =
    limit !== undefined && !(parsedText.serialisable && parsedText.maxJsonBytes <= limit);
  if (!writable && !sized) return;
  const limited = limitedFieldOf(subType);
  const isResult = subType === 'TOOL_RESULT';
  for (const key in payload) {
    if (key === limited || (isResult && (key === 'output' || key === 'delta'))) continue;
    const value = payload[key];
    if (writable && (typeof value === 'object' || typeof value === 'bigint'))
      checkSerialisable(errors, draft, path, `payload.${key}`, value, false);
    if (sized) {
      const bytes = bytesOver(value, limit);
      if (bytes !== undefined) reportTooLarge(errors, draft, path, key, limit, bytes);
    }
  }
}

/** The byte limit of a sub type's payload. */
function limitOf(subType: unknown, limits: BlockLimits): number | undefined {
  switch (subType) {
    case 'MESSAGE':
      return limits.messageBytes;
    case 'TOOL_CALL':
      return limits.toolArgumentsBytes;
    case 'THINK':
      return limits.thinkBytes;
    case 'TOOL_RESULT':
      return limits.toolResultBytes;
    default:
      return undefined;
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
