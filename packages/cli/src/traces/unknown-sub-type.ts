import { blockTypeOf } from '@tracewarden/core';
import { isObject } from '../formats/is-object.js';
import { createUnknownValueTally, type UnknownValueTally } from '../warnings/index.js';

/** The sub types of seed 002, in its order (the keys of core's `blockTypeOf`). */
export const knownSubTypes: readonly string[] = Object.keys(blockTypeOf);

const known = new Set(knownSubTypes);

/**
 * A block's `sub_type` when it is a string that is not one of seed 002's (a misspelt
 * `TOOL_CALLL`, a lower-case `tool_call`). `view`, `stats`, `check`, `convert` and `push` leave such a
 * block out and say so once per value; `validate` reports it as a VALIDATION problem.
 *
 * @param value - a block as read
 * @returns the unknown sub type, or undefined when it is known, missing or not a string
 */
export function unknownSubTypeOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const subType = value.sub_type;
  return typeof subType === 'string' && !known.has(subType) ? subType : undefined;
}

/**
 * The tally the commands share, so all word an unknown sub type the same way:
 * `unknown sub_type "TOOL_CALLL": 2 blocks, left out; known sub types: MESSAGE, ...`.
 * @param consequence - what the command does with such blocks @default 'left out'
 * @returns an empty tally
 */
export function createUnknownSubTypeTally(consequence = 'left out'): UnknownValueTally {
  return createUnknownValueTally({
    code: 'UNKNOWN_SUB_TYPE',
    field: 'sub_type',
    records: ['block', 'blocks'],
    consequence: [consequence, consequence],
    known: knownSubTypes,
  });
}
