import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import { createBlockValidator } from './create-block-validator.js';
import { validateBlocks } from './validate-blocks.js';

const at = '2026-01-01T00:00:00.000Z';
const message = {
  id: 'tb_m',
  trace_id: 'tr_1',
  sub_type: 'MESSAGE',
  created_at: at,
  payload: { role: 'user', content: 'hi' },
};
const call = (position: number, callId: string) => ({
  id: `tb_c${String(position).padStart(3, '0')}`,
  trace_id: 'tr_1',
  sub_type: 'TOOL_CALL',
  parent_block_id: 'tb_m',
  created_at: at,
  payload: { call_id: callId, name: 'f', arguments: {} },
});

// Call ids of one to three digits: counters without padding (c9 then c10), which rise in
// shortlex order but not by `>`, mixed with falling and repeated ones, so both the path that
// needs no lookup and the indexed one are taken, and the switch between them.
const callIds = fc.array(
  fc.oneof(
    fc.integer({ min: 0, max: 120 }).map((n) => `c${n}`),
    fc.nat(40).map((n) => `c${n}`),
  ),
  { maxLength: 60 },
);

describe('call ids (property)', () => {
  it('accept rejects exactly the call ids of the trace accepted before', () => {
    fc.assert(
      fc.property(callIds, (ids) => {
        const validator = createBlockValidator({ traceId: 'tr_1' });
        validator.accept(message);
        const seen = new Set<string>();
        for (const [position, callId] of ids.entries()) {
          if (seen.has(callId)) {
            let error: unknown;
            try {
              validator.accept(call(position, callId));
            } catch (caught) {
              error = caught;
            }
            expect(error).toBeInstanceOf(TraceError);
            expect((error as TraceError).code).toBe('DUPLICATE_CALL_ID');
          } else {
            expect(validator.accept(call(position, callId)).id).toBe(call(position, callId).id);
            seen.add(callId);
          }
        }
        expect(validator.size).toBe(seen.size + 1);
      }),
      { numRuns: 300 },
    );
  });

  it('validateBlocks reports exactly the repeats of a call id, at their positions', () => {
    fc.assert(
      fc.property(callIds, (ids) => {
        const seen = new Set<string>();
        const repeats: string[] = [];
        for (const [position, callId] of ids.entries()) {
          if (seen.has(callId)) repeats.push(String(position + 1));
          seen.add(callId);
        }
        const report = validateBlocks([message, ...ids.map((callId, i) => call(i, callId))]);
        expect(report.errors.map((error) => [error.code, error.details.path])).toEqual(
          repeats.map((path) => ['DUPLICATE_CALL_ID', path]),
        );
      }),
      { numRuns: 300 },
    );
  });
});
