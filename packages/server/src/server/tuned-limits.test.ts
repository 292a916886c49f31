import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { blocks, startTestServer, type TestServer } from '../__fixtures__/test-server.js';
import { defaultServerLimits, resolveServerLimits } from '../config/index.js';

/** Seed 002's limits are env tunable: raising one must not be undone by the body limit. */
describe('block limits tuned by LIMIT_* variables', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
    vi.restoreAllMocks();
  });

  it('accepts a tool result as large as LIMIT_TOOL_RESULT_BYTES allows, past the default body size', async () => {
    const limit = 9 * 1024 * 1024;
    t = await startTestServer({ env: { LIMIT_TOOL_RESULT_BYTES: String(limit) } });
    const output = 'x'.repeat(limit);
    const response = await t.post('tr_big', [
      blocks.message('tb_m'),
      blocks.call('tb_c', 'tb_m', 'c1'),
      blocks.result('tb_r', 'tb_c', 'c1', output),
    ]);
    expect(response.status).toBe(201);
    // one byte over the tuned limit is the field's 413, as seed 002 words it
    const over = await t.post('tr_big', [blocks.result('tb_r2', 'tb_c', 'c1', `${output}x`, 1)]);
    expect(over.status).toBe(413);
    const body = (await over.json()) as { error: { code: string; details: { field: string } } };
    expect(body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(body.error.details.field).toBe('output');
  }, 60_000);

  it('accepts a tool result that fits its default limit however much its JSON escapes take (2 MB of control characters is 12 MB of JSON)', async () => {
    t = await startTestServer({});
    const output = '\u0001'.repeat(2 * 1024 * 1024);
    const response = await t.post('tr_escaped', [
      blocks.message('tb_m'),
      blocks.call('tb_c', 'tb_m', 'c1'),
      blocks.result('tb_r', 'tb_c', 'c1', output),
    ]);
    expect(response.status).toBe(201);
  }, 60_000);

  it('keeps a body limit the user set below a tuned block limit, and warns once at start', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    t = await startTestServer({
      env: {
        LIMIT_TOOL_RESULT_BYTES: String(4 * 1024 * 1024),
        TRACEWARDEN_MAX_BODY_BYTES: '1048576',
      },
    });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(
      /at most 1048576 bytes \(TRACEWARDEN_MAX_BODY_BYTES\).*raise TRACEWARDEN_MAX_BODY_BYTES to at least 26214400/,
    );
    const response = await t.post('tr_body', [blocks.message('tb_m', 'x'.repeat(1024 * 1024))]);
    expect(response.status).toBe(413);
    const body = (await response.json()) as { error: { details: { field: string } } };
    expect(body.error.details.field).toBe('body');
  });

  it('resolves the body limits from the largest block limit only when they are left to default', () => {
    const seed = { messageBytes: 65_536, thinkBytes: 32_768, toolArgumentsBytes: 262_144 };
    expect(resolveServerLimits({}, {}, { ...seed, toolResultBytes: 2_097_152 })).toEqual(
      defaultServerLimits,
    );
    const big = resolveServerLimits({}, {}, { ...seed, toolResultBytes: 100 * 1024 * 1024 });
    // room for the field written with JSON escapes (six bytes a byte at most), plus 1 MiB
    expect(big.maxBodyBytes).toBe(601 * 1024 * 1024);
    expect(big.maxDecompressedBytes).toBe(601 * 1024 * 1024);
    const set = resolveServerLimits({ maxBodyBytes: 1000 }, {}, { ...seed, toolResultBytes: 100 });
    expect(set.maxBodyBytes).toBe(1000);
  });
});

describe('a LIMIT_* lowered after blocks were stored', () => {
  it('keeps the trace open: new blocks build on stored blocks over the new limit', async () => {
    const first = await startTestServer({ env: {} });
    const dataDir = first.dataDir;
    const key = first.key;
    const content = 'x'.repeat(1000);
    expect(
      (
        await first.post('tr_lowered', [
          blocks.message('tb_m', content),
          blocks.call('tb_c', 'tb_m', 'c1'),
          blocks.result('tb_r', 'tb_c', 'c1', content, 0),
        ])
      ).status,
    ).toBe(201);
    await first.server.close();
    const lowered = await startTestServer({
      dataDir,
      env: { LIMIT_MSG_BYTES: '100', LIMIT_TOOL_RESULT_BYTES: '100' },
    });
    try {
      // a child of the stored message, a second result of the stored call: both fit the new limits
      const response = await lowered.post(
        'tr_lowered',
        [blocks.think('tb_t', 'tb_m'), blocks.result('tb_r2', 'tb_c', 'c1', 'ok', 1)],
        { key },
      );
      expect(response.status).toBe(201);
      // the stored blocks' rules still hold: a second call c1, a result seq 0 again
      const duplicate = await lowered.post('tr_lowered', [blocks.call('tb_c2', 'tb_m', 'c1')], {
        key,
      });
      expect(duplicate.status).toBe(409);
      expect(((await duplicate.json()) as { error: { code: string } }).error.code).toBe(
        'DUPLICATE_CALL_ID',
      );
      const seq = await lowered.post('tr_lowered', [blocks.result('tb_r3', 'tb_c', 'c1', 'x', 0)], {
        key,
      });
      expect(((await seq.json()) as { error: { code: string } }).error.code).toBe(
        'DUPLICATE_RESULT_SEQ',
      );
      // and the new limit holds for new blocks
      const big = await lowered.post('tr_lowered', [blocks.message('tb_m2', content)], { key });
      expect(big.status).toBe(413);
    } finally {
      await lowered.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
