import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import { createBlockValidator } from './create-block-validator.js';

const at = '2026-01-01T00:00:00.000Z';
const message = (id: string) => ({
  id,
  trace_id: 'tr_1',
  sub_type: 'MESSAGE',
  created_at: at,
  payload: { role: 'user', content: 'hi' },
});
const call = (id: string, parent: string, callId: string) => ({
  id,
  trace_id: 'tr_1',
  sub_type: 'TOOL_CALL',
  parent_block_id: parent,
  created_at: at,
  payload: { call_id: callId, name: 'f', arguments: {} },
});

describe('block ids (property)', () => {
  it('rejects exactly the ids seen before, in any order, whatever is looked up in between', () => {
    // ids from a small alphabet so that sorted runs, out-of-order ids and repeats all occur
    const id = fc.stringMatching(/^tb_[0-9A-C]{1,3}$/);
    const step = fc.oneof(
      { arbitrary: id.map((value) => ({ kind: 'message' as const, id: value })), weight: 4 },
      { arbitrary: id.map((value) => ({ kind: 'call' as const, id: value })), weight: 2 },
      { arbitrary: id.map((value) => ({ kind: 'get' as const, id: value })), weight: 1 },
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const validator = createBlockValidator({ traceId: 'tr_1' });
        const seen = new Set<string>();
        let lastMessage: string | undefined;
        let calls = 0;
        for (const s of steps) {
          if (s.kind === 'get') {
            expect(validator.get(s.id)?.id).toBe(seen.has(s.id) ? s.id : undefined);
            continue;
          }
          if (s.kind === 'call' && lastMessage === undefined) continue;
          const input =
            s.kind === 'message' ? message(s.id) : call(s.id, lastMessage!, `c${calls++}`);
          if (seen.has(s.id)) {
            let error: unknown;
            try {
              validator.accept(input);
            } catch (caught) {
              error = caught;
            }
            expect(error).toBeInstanceOf(TraceError);
            expect((error as TraceError).code).toBe('VALIDATION');
          } else {
            expect(validator.accept(input).id).toBe(s.id);
            seen.add(s.id);
            if (s.kind === 'message') lastMessage = s.id;
          }
          expect(validator.size).toBe(seen.size);
        }
      }),
      { numRuns: 500 },
    );
  });
});
