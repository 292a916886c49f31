import type { BlockType, SubType } from '../model/index.js';

/**
 * The `block_type` a `sub_type` implies, or `undefined` for an unknown sub type.
 * @internal
 */
export function blockTypeOf(subType: unknown): BlockType | undefined {
  switch (subType) {
    case 'MESSAGE':
      return 'MESSAGE';
    case 'TOOL_CALL':
    case 'THINK':
      return 'ACT';
    case 'TOOL_RESULT':
      return 'OBSERVE';
    default:
      return undefined;
  }
}

/**
 * The sub type as the literal this module holds, or `undefined` for an unknown one. A parsed
 * `"TOOL_RESULT"` (longer than the short values JSON.parse internalises) is a fresh string, so
 * every later comparison with it would compare characters; the literal compares by identity.
 */
export function knownSubType(value: unknown): SubType | undefined {
  switch (value) {
    case 'MESSAGE':
      return 'MESSAGE';
    case 'TOOL_CALL':
      return 'TOOL_CALL';
    case 'THINK':
      return 'THINK';
    case 'TOOL_RESULT':
      return 'TOOL_RESULT';
    default:
      return undefined;
  }
}
