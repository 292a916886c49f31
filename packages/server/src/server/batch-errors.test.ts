import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks, startTestServer, type TestServer } from '../__fixtures__/test-server.js';

interface ErrorBody {
  error: { code: string; http_status: number; message: string; details: Record<string, unknown> };
}

describe('errors about one block of a batch', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.stop());

  it('names a block sent without an id by its position, never by an id the collector drew', async () => {
    const response = await t.post('tr_noid', [
      blocks.message('tb_ok'),
      { sub_type: 'MESSAGE', payload: { role: 'tool', content: 'x' } },
    ]);
    expect(response.status).toBe(422);
    const { error } = (await response.json()) as ErrorBody;
    expect(error.details.path).toBe('1');
    expect(error.details).not.toHaveProperty('block_id');
    expect(error.message).toMatch(/^block 1 of the batch: payload\.role/);
    expect(error.message).not.toMatch(/tb_0/);
    // a block the client named keeps its id in the error
    const named = await t.post('tr_noid', [
      { id: 'tb_named', sub_type: 'MESSAGE', payload: { role: 'tool', content: 'x' } },
    ]);
    const body = (await named.json()) as ErrorBody;
    expect(body.error.details.block_id).toBe('tb_named');
  });

  it('answers a cycle of parent links in one batch with PARENT_SUBTYPE_MISMATCH (409), as across two requests', async () => {
    const call = (id: string, parent: string, callId: string) => ({
      ...blocks.call(id, parent, callId),
    });
    const response = await t.post('tr_cycle', [
      call('tb_A', 'tb_B', 'c1'),
      call('tb_B', 'tb_A', 'c2'),
    ]);
    expect(response.status).toBe(409);
    const { error } = (await response.json()) as ErrorBody;
    expect(error.code).toBe('PARENT_SUBTYPE_MISMATCH');
    expect(error.details.parent_sub_type).toBe('TOOL_CALL');
    expect(error.message).toMatch(/parent must be a MESSAGE block, but tb_[AB] is a TOOL_CALL/);
    // the same link across two requests
    expect(
      (await t.post('tr_cycle2', [blocks.message('tb_m'), blocks.call('tb_C', 'tb_m', 'c1')]))
        .status,
    ).toBe(201);
    const across = await t.post('tr_cycle2', [call('tb_D', 'tb_C', 'c2')]);
    expect(across.status).toBe(409);
    expect(((await across.json()) as ErrorBody).error.code).toBe('PARENT_SUBTYPE_MISMATCH');
  });

  it('answers a TOOL_CALL <-> TOOL_RESULT cycle with the same 409 whichever block comes first', async () => {
    const call = { ...blocks.call('tb_a', 'tb_b', 'c1') };
    const result = { ...blocks.result('tb_b', 'tb_a', 'c1', 'out') };
    for (const [traceId, batch] of [
      ['tr_cyc_1', [call, result]],
      ['tr_cyc_2', [result, call]],
    ] as const) {
      const response = await t.post(traceId, [...batch]);
      const { error } = (await response.json()) as ErrorBody;
      expect([traceId, response.status, error.code]).toEqual([
        traceId,
        409,
        'PARENT_SUBTYPE_MISMATCH',
      ]);
      expect(error.details.parent_sub_type).toBe('TOOL_RESULT');
    }
  });
});
