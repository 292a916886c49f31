import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TraceError } from '../errors/index.js';
import { BlockSchema, blockTypeOf, type SubType } from '../model/index.js';
import { checkBlock } from './check-block.js';
import { createBlockValidator } from './create-block-validator.js';
import type { BlockLimits } from './types.js';
import { validateBlocks } from './validate-blocks.js';

const limits: BlockLimits = {
  messageBytes: 40,
  thinkBytes: 30,
  toolArgumentsBytes: 50,
  toolResultBytes: 60,
};

// ---------------------------------------------------------------------------------------------
// Reference oracle: the public zod schema plus the validator's extra rules, written plainly.
// ---------------------------------------------------------------------------------------------

const isoPattern =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
// in a `u` regex a surrogate range only matches unpaired surrogates
const loneSurrogate = /[\ud800-\udfff]/u;
const encoder = new TextEncoder();

function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return loneSurrogate.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(
      ([key, item]) => loneSurrogate.test(key) || hasLoneSurrogate(item),
    );
  }
  return false;
}

/** Whether a limited field fits and encodes; `undefined` when it has no JSON form. */
function fieldOk(value: unknown, limit: number): boolean {
  let text: string | undefined;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    return false;
  }
  if (text === undefined) return false;
  return !hasLoneSurrogate(value) && encoder.encode(text).length <= limit;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function extraRulesHold(block: Record<string, unknown>): boolean {
  // an absent created_at is the insertion time, set by the validator
  if (
    block.created_at !== undefined &&
    (typeof block.created_at !== 'string' || !isoPattern.test(block.created_at))
  )
    return false;
  if (
    block.updated_at !== undefined &&
    (typeof block.updated_at !== 'string' || !isoPattern.test(block.updated_at))
  )
    return false;
  const parent = block.parent_block_id;
  const payload = block.payload as Record<string, unknown>;
  switch (block.sub_type) {
    case 'MESSAGE': {
      if (parent !== undefined && parent !== null) return false;
      const content = payload.content;
      // a list of only text parts without text says nothing (seed 002's non-empty content)
      const empty =
        content === undefined ||
        content === null ||
        content === '' ||
        (Array.isArray(content) &&
          content.every(
            (part) => isObject(part) && part.type === 'text' && (part.text ?? '') === '',
          ));
      if (
        Array.isArray(content) &&
        content.some(
          (part) =>
            isObject(part) &&
            part.type === 'text' &&
            part.text != null &&
            typeof part.text !== 'string',
        )
      )
        return false;
      if (empty && payload.role !== 'assistant') return false;
      return content == null || fieldOk(content, limits.messageBytes);
    }
    case 'TOOL_CALL': {
      if (typeof parent !== 'string' || parent === block.id) return false;
      const args = payload.arguments;
      if (typeof args === 'string') {
        if (!fieldOk(args, limits.toolArgumentsBytes)) return false;
        try {
          return isObject(JSON.parse(args));
        } catch {
          return false;
        }
      }
      return isObject(args) && fieldOk(args, limits.toolArgumentsBytes);
    }
    case 'THINK':
      return (
        typeof parent === 'string' &&
        parent !== block.id &&
        fieldOk(payload.text, limits.thinkBytes)
      );
    case 'TOOL_RESULT': {
      if (typeof parent !== 'string' || parent === block.id) return false;
      const hasOutput = payload.output !== undefined;
      const hasDelta = payload.delta !== undefined;
      if (hasOutput === hasDelta) return false;
      return fieldOk(hasOutput ? payload.output : payload.delta, limits.toolResultBytes);
    }
    default:
      return false;
  }
}

function oracleAccepts(input: unknown): boolean {
  if (!isObject(input)) return false;
  const subType = input.sub_type;
  const derived =
    typeof subType === 'string' && Object.hasOwn(blockTypeOf, subType)
      ? blockTypeOf[subType as SubType]
      : undefined;
  const withType = input.block_type === undefined ? { ...input, block_type: derived } : input;
  return BlockSchema.safeParse(withType).success && extraRulesHold(input);
}

// ---------------------------------------------------------------------------------------------
// Generators: mostly-valid blocks, each field sometimes replaced by something wrong.
// ---------------------------------------------------------------------------------------------

const weird = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.string({ maxLength: 5 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

function mostly<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: valid, weight: 15 }, { arbitrary: weird, weight: 1 });
}

const text = fc.oneof(
  { arbitrary: fc.string({ minLength: 1, maxLength: 12 }), weight: 6 },
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom(
    '',
    'é'.repeat(20),
    '😀'.repeat(10),
    '😀'.repeat(8),
    '\ud800',
    'a\udc00b',
    'x'.repeat(40),
    'x'.repeat(30),
    '\\ud800',
  ),
);
const timestamp = fc.oneof(
  fc
    .date({ noInvalidDate: true, min: new Date(0), max: new Date(Date.UTC(9999, 11, 31)) })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    '2025-01-31T12:00:00Z',
    '2025-01-31T12:00:00.123456789+02:00',
    '2025-01-31T23:59:60-11:30',
    '2025-13-01T00:00:00Z',
    '2025-01-32T00:00:00Z',
    '2025-01-31T24:00:00Z',
    '2025-01-31T12:00:00.1234567890Z',
    '2025-01-31T12:00:00.Z',
    '2025-01-31 12:00:00Z',
    '2025-01-31T12:00:00+2:00',
    '2025-01-31T12:00:00',
    'yesterday',
    '',
  ),
);
const jsonObject = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 4,
});
const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('image'), image_url: fc.webUrl() }),
  fc.record({ text }),
  weird,
);

const payloads = {
  MESSAGE: fc.record({
    role: mostly(fc.constantFrom('system', 'user', 'assistant', 'tool')),
    content: fc.oneof(
      text,
      fc.constant(null),
      fc.constant(undefined),
      fc.array(part, { maxLength: 3 }),
      weird,
    ),
  }),
  TOOL_CALL: fc.record({
    call_id: mostly(fc.constantFrom('c1', 'c2', '')),
    name: mostly(fc.constantFrom('get_weather', '')),
    arguments: fc.oneof(
      { arbitrary: jsonObject, weight: 3 },
      { arbitrary: jsonObject.map((o) => JSON.stringify(o)), weight: 3 },
      fc.constantFrom('{bad', '[1]', '"x"', '{"a":"\ud800"}', ''),
      text,
      weird,
    ),
  }),
  THINK: fc.record({ text: mostly(text) }),
  TOOL_RESULT: fc.record({
    call_id: mostly(fc.constantFrom('c1', 'c2')),
    output: fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 }), text),
    delta: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 3 },
      { arbitrary: text, weight: 1 },
    ),
    seq: fc.oneof(
      fc.constant(undefined),
      fc.nat(),
      fc.constantFrom(-1, 1.5, '1', null, 2 ** 53, -0),
    ),
  }),
};

const subTypes = ['MESSAGE', 'TOOL_CALL', 'THINK', 'TOOL_RESULT'] as const;

const candidateBlock = fc.constantFrom(...subTypes).chain((subType) =>
  fc.record({
    id: mostly(fc.constantFrom('tb_1', 'tb_2')),
    trace_id: mostly(fc.constant('tr_1')),
    sub_type: fc.oneof(
      { arbitrary: fc.constant<unknown>(subType), weight: 8 },
      { arbitrary: fc.constantFrom('ACT', 'message', '__proto__'), weight: 1 },
    ),
    block_type: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 3 },
      { arbitrary: fc.constant(blockTypeOf[subType]), weight: 3 },
      { arbitrary: fc.constantFrom('MESSAGE', 'ACT', 'OBSERVE', null), weight: 1 },
    ),
    payload: mostly(payloads[subType] as fc.Arbitrary<unknown>),
    parent_block_id: fc.oneof(
      {
        arbitrary: subType === 'MESSAGE' ? fc.constantFrom(undefined, null) : fc.constant('tb_0'),
        weight: 8,
      },
      fc.constant(undefined),
      fc.constant(null),
      fc.constantFrom('tb_0', 'tb_1', ''),
      weird,
    ),
    metadata: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 3 },
      { arbitrary: jsonObject, weight: 2 },
      { arbitrary: weird, weight: 1 },
    ),
    extra: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 3 },
      { arbitrary: jsonObject, weight: 2 },
      { arbitrary: weird, weight: 1 },
    ),
    raw: fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 })),
    created_at: mostly(timestamp),
    updated_at: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 3 },
      { arbitrary: mostly(timestamp), weight: 1 },
    ),
  }),
);

describe('the hand-written check agrees with the zod BlockSchema plus the extra rules', () => {
  it('on every generated block, valid or mutated', () => {
    let accepted = 0;
    fc.assert(
      fc.property(candidateBlock, (input) => {
        const errors = checkBlock(input, { limits });
        const oracle = oracleAccepts(input);
        if (oracle) accepted++;
        expect({ ok: errors.length === 0, errors: errors.map((e) => e.message) }).toEqual({
          ok: oracle,
          errors: oracle ? [] : expect.anything(),
        });
      }),
      { numRuns: 3000 },
    );
    // the generator must exercise the accepting side too
    expect(accepted).toBeGreaterThan(150);
  });

  it('on JSON round trips of generated blocks (what a JSONL reader sees)', () => {
    fc.assert(
      fc.property(candidateBlock, (input) => {
        let line: string;
        try {
          line = JSON.stringify(input);
        } catch {
          return;
        }
        const parsed: unknown = JSON.parse(line);
        expect(checkBlock(parsed, { limits }).length === 0).toBe(oracleAccepts(parsed));
      }),
      { numRuns: 1000 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Valid traces: any topological order is accepted; validateBlocks is order independent.
// ---------------------------------------------------------------------------------------------

interface Node {
  block: Record<string, unknown>;
  parent: number | undefined;
}

/** A valid trace shape: each entry picks a parent among earlier nodes by a random number. */
const traceShape = fc.array(
  fc.tuple(
    fc.constantFrom('MESSAGE', 'TOOL_CALL', 'THINK', 'TOOL_RESULT'),
    fc.nat(),
    fc.nat({ max: 5 }),
  ),
  { minLength: 1, maxLength: 40 },
);

function buildTrace(shape: [string, number, number][], traceId = 'tr_1'): Node[] {
  const nodes: Node[] = [];
  const messages: number[] = [];
  const calls: number[] = [];
  let seq = 0;
  shape.forEach(([wanted, pick, second], i) => {
    const id = `tb_${traceId}_${i}`;
    const createdAt = new Date(Date.UTC(2025, 0, 31, 12, 0, second)).toISOString();
    let subType = wanted;
    if (subType === 'TOOL_RESULT' && calls.length === 0) subType = 'TOOL_CALL';
    if (subType !== 'MESSAGE' && messages.length === 0) subType = 'MESSAGE';
    if (subType === 'MESSAGE') {
      messages.push(i);
      nodes.push({
        parent: undefined,
        block: {
          id,
          trace_id: traceId,
          sub_type: 'MESSAGE',
          payload: { role: 'user', content: `m${i}` },
          created_at: createdAt,
        },
      });
    } else if (subType === 'TOOL_RESULT') {
      const parent = calls[pick % calls.length]!;
      const callId = (nodes[parent]!.block.payload as { call_id: string }).call_id;
      const payload =
        pick % 2 === 0
          ? { call_id: callId, output: { n: i } }
          : { call_id: callId, delta: `d${i}`, seq: seq++ };
      nodes.push({
        parent,
        block: {
          id,
          trace_id: traceId,
          sub_type: 'TOOL_RESULT',
          parent_block_id: nodes[parent]!.block.id,
          payload,
          created_at: createdAt,
        },
      });
    } else {
      const parent = messages[pick % messages.length]!;
      const payload =
        subType === 'THINK'
          ? { text: `t${i}` }
          : { call_id: `call_${traceId}_${i}`, name: 'tool', arguments: '{"a":1}' };
      if (subType === 'TOOL_CALL') calls.push(i);
      nodes.push({
        parent,
        block: {
          id,
          trace_id: traceId,
          sub_type: subType,
          parent_block_id: nodes[parent]!.block.id,
          payload,
          created_at: createdAt,
        },
      });
    }
  });
  return nodes;
}

/** A topological order chosen by priorities: repeatedly take the ready node with the lowest one. */
function topologicalOrder(nodes: Node[], priorities: number[]): Node[] {
  const done = new Set<number>();
  const order: Node[] = [];
  while (order.length < nodes.length) {
    let best = -1;
    for (let i = 0; i < nodes.length; i++) {
      const parent = nodes[i]!.parent;
      if (done.has(i) || (parent !== undefined && !done.has(parent))) continue;
      if (best === -1 || (priorities[i] ?? 0) < (priorities[best] ?? 0)) best = i;
    }
    done.add(best);
    order.push(nodes[best]!);
  }
  return order;
}

function shuffle<T>(items: T[], keys: number[]): T[] {
  return items
    .map((item, i) => ({ item, key: keys[i % Math.max(1, keys.length)] ?? 0, i }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map((entry) => entry.item);
}

function errorKeys(errors: TraceError[]): string[] {
  return errors
    .map((error) => {
      const { path: _path, ...details } = error.details;
      return JSON.stringify([error.code, details]);
    })
    .sort();
}

describe('order properties', () => {
  it('a valid trace is accepted in any topological order', () => {
    fc.assert(
      fc.property(
        traceShape,
        fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
        (shape, priorities) => {
          const nodes = buildTrace(shape);
          const validator = createBlockValidator({ limits });
          for (const node of topologicalOrder(nodes, priorities)) validator.accept(node.block);
          expect(validator.size).toBe(nodes.length);
          expect(
            validateBlocks(
              nodes.map((n) => n.block),
              { limits },
            ),
          ).toEqual({ ok: true, errors: [] });
        },
      ),
    );
  });

  it('validateBlocks finds the same errors whatever the order of the blocks', () => {
    const mutation = fc.tuple(
      fc.constantFrom(
        'drop',
        'duplicate-call',
        'duplicate-seq',
        'copy',
        'reparent',
        'foreign',
        'empty',
      ),
      fc.nat(),
      fc.nat(),
    );
    fc.assert(
      fc.property(
        traceShape,
        traceShape,
        fc.array(mutation, { maxLength: 6 }),
        fc.array(fc.nat(), { minLength: 1 }),
        (shapeA, shapeB, mutations, keys) => {
          const blocks = [...buildTrace(shapeA, 'tr_a'), ...buildTrace(shapeB, 'tr_b')].map(
            (n) => n.block,
          );
          for (const [kind, a, b] of mutations) {
            if (blocks.length === 0) break;
            const target = blocks[a % blocks.length]!;
            const other = blocks[b % blocks.length]!;
            const payload = target.payload as Record<string, unknown>;
            switch (kind) {
              case 'drop':
                blocks.splice(a % blocks.length, 1);
                break;
              case 'duplicate-call':
                if (target.sub_type === 'TOOL_CALL')
                  blocks.push({
                    ...target,
                    id: `${String(target.id)}_dup`,
                    created_at: '2025-01-31T13:00:00Z',
                  });
                break;
              case 'duplicate-seq':
                if (target.sub_type === 'TOOL_RESULT' && payload.seq !== undefined)
                  blocks.push({
                    ...target,
                    id: `${String(target.id)}_seq`,
                    created_at: '2025-01-31T13:00:01Z',
                  });
                break;
              case 'copy':
                blocks.push({ ...target });
                break;
              case 'reparent':
                if (target.sub_type !== 'MESSAGE')
                  blocks[a % blocks.length] = { ...target, parent_block_id: other.id };
                break;
              case 'foreign':
                blocks[a % blocks.length] = {
                  ...target,
                  trace_id: target.trace_id === 'tr_a' ? 'tr_b' : 'tr_a',
                };
                break;
              case 'empty':
                blocks[a % blocks.length] = { ...target, payload: {} };
                break;
            }
          }
          const forward = validateBlocks(blocks, { limits });
          const shuffled = validateBlocks(shuffle(blocks, keys), { limits });
          expect(errorKeys(shuffled.errors)).toEqual(errorKeys(forward.errors));
          expect(shuffled.ok).toBe(forward.ok);
        },
      ),
      { numRuns: 300 },
    );
  });
});
