import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import { createBlockValidator } from './create-block-validator.js';

const at = '2026-01-01T00:00:00.000Z';

/**
 * One step of a trace: a block of some sub type whose id, trace, parent, call id and seq are
 * picked from small sets, so that missing parents, parents of the wrong sub type, foreign
 * traces, repeated ids, call ids and seqs, and results answering another call all occur.
 */
const step = fc.record({
  subType: fc.constantFrom('MESSAGE', 'TOOL_CALL', 'THINK', 'TOOL_RESULT'),
  id: fc.integer({ min: 0, max: 40 }),
  trace: fc.oneof({ arbitrary: fc.constant('tr_1'), weight: 12 }, fc.constant('tr_2')),
  // how the parent is chosen: the last block, the last of the wanted sub type, any earlier
  // block, a block not accepted, itself, or none
  parent: fc.constantFrom(
    'last',
    'wanted',
    'wanted',
    'wanted',
    'earlier',
    'unknown',
    'self',
    'none',
  ),
  pick: fc.nat(),
  callId: fc.constantFrom('c1', 'c2', 'c3', 'parent', 'parent', 'parent', 'fresh', 'fresh'),
  seq: fc.constantFrom(undefined, undefined, 0, 1, 2),
});

describe('accept and check (property)', () => {
  it('accept throws exactly when check finds a problem, and records only what it accepts', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 50 }),
        fc.constantFrom('tr_1', undefined),
        (steps, traceId) => {
          const validator = createBlockValidator(traceId === undefined ? {} : { traceId });
          const accepted: { id: string; sub_type: string; payload: Record<string, unknown> }[] = [];
          let fresh = 0;
          for (const s of steps) {
            const id = `tb_${s.id}`;
            const wanted =
              s.subType === 'TOOL_RESULT'
                ? 'TOOL_CALL'
                : s.subType === 'MESSAGE'
                  ? undefined
                  : 'MESSAGE';
            const ofWanted = accepted.filter((block) => block.sub_type === wanted);
            let parent: string | undefined;
            if (s.subType !== 'MESSAGE') {
              if (s.parent === 'last') parent = accepted.at(-1)?.id;
              else if (s.parent === 'wanted') parent = ofWanted.at(-1 - (s.pick % 3))?.id;
              else if (s.parent === 'earlier' && accepted.length > 0)
                parent = accepted[s.pick % accepted.length]?.id;
              else if (s.parent === 'unknown') parent = `tb_x${s.pick % 3}`;
              else if (s.parent === 'self') parent = id;
              parent ??= s.parent === 'none' ? undefined : 'tb_none';
            }
            const parentBlock = accepted.find((block) => block.id === parent);
            const callId =
              s.callId === 'fresh'
                ? `f${fresh++}`
                : s.callId === 'parent'
                  ? String(parentBlock?.payload.call_id ?? 'c1')
                  : s.callId;
            const payload =
              s.subType === 'MESSAGE'
                ? { role: 'user', content: 'hi' }
                : s.subType === 'THINK'
                  ? { text: 'hmm' }
                  : s.subType === 'TOOL_CALL'
                    ? { call_id: callId, name: 'f', arguments: '{"a":1}' }
                    : s.seq === undefined
                      ? { call_id: callId, output: { n: 1 } }
                      : { call_id: callId, delta: 'd', seq: s.seq };
            const input = {
              id,
              trace_id: s.trace,
              sub_type: s.subType,
              ...(parent === undefined ? {} : { parent_block_id: parent }),
              payload,
              created_at: at,
            };
            const problems = validator.check(input);
            const sizeBefore = validator.size;
            let error: unknown;
            let block: (typeof accepted)[number] | undefined;
            try {
              block = validator.accept(input);
            } catch (caught) {
              error = caught;
            }
            if (problems.length === 0) {
              expect(error).toBeUndefined();
              expect(block?.id).toBe(id);
              accepted.push(block!);
              expect(validator.size).toBe(sizeBefore + 1);
            } else {
              expect(error).toBeInstanceOf(TraceError);
              expect(problems.map((problem) => problem.code)).toContain((error as TraceError).code);
              expect(validator.size).toBe(sizeBefore);
            }
            expect(validator.get(id)).toBe(accepted.find((b) => b.id === id));
          }
        },
      ),
      { numRuns: 1500 },
    );
  });
});
