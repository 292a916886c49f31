import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Block, stitchBlocks } from '@tracewarden/core';
import { type RunningServer, startServer } from '@tracewarden/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryIo, type MemoryIoOptions } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../__fixtures__/${name}`, import.meta.url));
const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-cli-push-'));
let server: RunningServer;
let key: string;

beforeAll(async () => {
  server = await startServer({
    port: 0,
    dataDir: join(temporary, 'collector'),
    env: {},
    onError: () => undefined,
  });
  key = server.initialApiKey?.key as string;
});
afterAll(async () => {
  await server.close();
  rmSync(temporary, { recursive: true, force: true });
});

async function push(argv: string[], options: MemoryIoOptions = {}) {
  const io = createMemoryIo({
    env: { TRACEWARDEN_URL: server.url, TRACEWARDEN_API_KEY: key },
    ...options,
  });
  const code = await runCli(['push', ...argv], io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

async function get(path: string, apiKey = key): Promise<unknown> {
  const response = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  expect(response.status).toBe(200);
  return response.json();
}

function blocksOf(file: string): Block[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Block);
}

async function traceSummaries(organization = 'default', apiKey = key) {
  const list = (await get(`/v1/organizations/${organization}/traces?limit=100`, apiKey)) as {
    traces: { id: string; block_count: number }[];
  };
  return list.traces;
}

describe('tracewarden push', () => {
  it('says once per name that a top-level field outside seed 002 is not pushed (a warning, exit 0)', async () => {
    const file = join(temporary, 'fields.jsonl');
    const lines = blocksOf(fixture('blocks.jsonl'))
      .filter((block) => block.trace_id === 'tr_weather')
      .map((block) => JSON.stringify({ ...block, trace_id: 'tr_fields', project: 'mail' }));
    writeFileSync(file, lines.join('\n'));
    const { code, stderr } = await push([file]);
    expect(code).toBe(0);
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^.*fields\.jsonl:1: warning UNKNOWN_BLOCK_FIELD tr_fields\/tb_\w+: \d+ blocks have the top-level field "project".*so it is dropped; move client data into extra$/,
      ),
    ]);
    const stored = (await get('/v1/organizations/default/traces/tr_fields/blocks')) as {
      blocks: Record<string, unknown>[];
    };
    expect(stored.blocks.length).toBe(lines.length);
    expect(stored.blocks.some((block) => 'project' in block)).toBe(false);
  });

  it('uploads a JSONL block file split by trace_id; the collector stitches each trace as core does', async () => {
    const file = fixture('blocks.jsonl');
    const { code, stdout, stderr } = await push([file]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(
      `ok: pushed 2 traces (10 blocks) from 1 file to ${server.url}/v1/organizations/default\n`,
    );
    const blocks = blocksOf(file);
    for (const traceId of ['tr_weather', 'tr_mail']) {
      const stitched = await get(`/v1/organizations/default/traces/${traceId}/blocks.stitched`);
      const own = blocks.filter((block) => block.trace_id === traceId);
      expect(stitched).toEqual(JSON.parse(JSON.stringify(stitchBlocks(own, { traceId }))));
    }
  });

  it('uploads a dataset; pushing it again stores nothing twice (ids come from the content)', async () => {
    const { key: acmeKey } = await server.createApiKey({ organization: 'datasets' });
    const argv = [fixture('chat-dataset.jsonl'), '--org', 'datasets', '--api-key', acmeKey];
    const first = await push(argv);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('ok: pushed 2 traces');
    const before = await traceSummaries('datasets', acmeKey);
    expect(before.map((trace) => trace.id)).toContain('run-1');
    const second = await push(argv);
    expect(second.code).toBe(0);
    expect(await traceSummaries('datasets', acmeKey)).toEqual(before);
    // another file's unnamed trace does not collide with this one's
    const other = await push([
      fixture('chat-trace.json'),
      '--org',
      'datasets',
      '--api-key',
      acmeKey,
    ]);
    expect(other.code).toBe(0);
    expect(await traceSummaries('datasets', acmeKey)).toHaveLength(before.length + 1);
  });

  it('--dataset files the pushed traces under a dataset of the collector, created once; a re-push adds nothing', async () => {
    const { key: evalKey } = await server.createApiKey({ organization: 'evals' });
    const argv = [fixture('chat-dataset.jsonl'), '--org', 'evals', '--api-key', evalKey];
    const first = await push([...argv, '--dataset', 'nightly', '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).dataset).toEqual({ name: 'nightly', created: true, added: 2 });
    const dataset = (await get('/v1/organizations/evals/datasets/nightly', evalKey)) as {
      name: string;
      traces: { trace_id: string }[];
    };
    expect(dataset.traces.map((trace) => trace.trace_id).sort()).toEqual(
      (await traceSummaries('evals', evalKey)).map((trace) => trace.id).sort(),
    );
    const again = await push([...argv, '--dataset', 'nightly', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).dataset).toMatchObject({ name: 'nightly', created: false });
    const after = (await get('/v1/organizations/evals/datasets/nightly', evalKey)) as {
      traces: unknown[];
    };
    expect(after.traces).toHaveLength(2);
  });

  it('uploads trace entries by session; a re-push stores nothing twice, another file of the same session adds to it', async () => {
    const { key: entriesKey } = await server.createApiKey({ organization: 'entries' });
    const argv = (file: string) => [file, '--org', 'entries', '--api-key', entriesKey];
    expect((await push(argv(fixture('entries.jsonl')))).code).toBe(0);
    const before = await traceSummaries('entries', entriesKey);
    expect(before.map((trace) => trace.id).sort()).toEqual(['s1', 's2']);
    expect((await push(argv(fixture('entries.jsonl')))).code).toBe(0);
    expect(await traceSummaries('entries', entriesKey)).toEqual(before);
    // the same session, other calls: their blocks do not collide with the first file's
    const later = join(temporary, 'later-entries.jsonl');
    writeFileSync(
      later,
      readFileSync(fixture('entries.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('"session_id":"s1"'))
        .map((line) => line.replaceAll('0b6f2c1e-', 'later-').replaceAll('select ', 'select 1'))
        .join('\n'),
    );
    const third = await push(argv(later));
    expect(third.stdout).toContain('ok: pushed 1 trace');
    const after = await traceSummaries('entries', entriesKey);
    const s1 = (list: typeof after) => list.find((trace) => trace.id === 's1')?.block_count ?? 0;
    expect(s1(after)).toBeGreaterThan(s1(before));
  });

  it('pushes two converted chat files together, and a converted file as its source pushes (review: both were tr_000001)', async () => {
    const { key: convertedKey } = await server.createApiKey({ organization: 'converted' });
    const weather = join(temporary, 'weather-chat.json');
    writeFileSync(
      weather,
      JSON.stringify([
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: 'Sunny.' },
      ]),
    );
    const converted: string[] = [];
    for (const source of [fixture('chat-trace.json'), weather]) {
      const out = join(temporary, `converted-${converted.length}.jsonl`);
      const io = createMemoryIo();
      expect(await runCli(['convert', source, '--to', 'jsonl', '-o', out], io)).toBe(0);
      converted.push(out);
    }
    const stats = createMemoryIo();
    expect(await runCli(['stats', ...converted, '--json'], stats)).toBe(0);
    expect(JSON.parse(stats.stdoutText).traces).toBe(2);
    const argv = ['--org', 'converted', '--api-key', convertedKey];
    const first = await push([...converted, ...argv]);
    expect(first.stdout).toContain('ok: pushed 2 traces');
    expect(first.code).toBe(0);
    const before = await traceSummaries('converted', convertedKey);
    expect(before).toHaveLength(2);
    // the same trace, pushed from the chat file itself: the same ids, so nothing new is stored
    const source = await push([fixture('chat-trace.json'), ...argv]);
    expect(source.code).toBe(0);
    expect(await traceSummaries('converted', convertedKey)).toEqual(before);
  });

  it('reports a block the collector refuses with its file, line and code, pushes the other traces, and exits 1', async () => {
    const file = join(temporary, 'mixed.jsonl');
    const good = readFileSync(fixture('blocks.jsonl'), 'utf8').replaceAll('tr_', 'tr_good_');
    writeFileSync(file, `${readFileSync(fixture('malformed/wrong-parent.jsonl'), 'utf8')}${good}`);
    const { code, stdout } = await push([file]);
    expect(code).toBe(1);
    // the collector checks the batch in the file's order, parents first: line 2's parent is a
    // MESSAGE, not a TOOL_CALL (seed 002: 409 PARENT_SUBTYPE_MISMATCH)
    expect(stdout).toMatch(
      new RegExp(
        `^${file.replaceAll('.', '\\.')}:2: PARENT_SUBTYPE_MISMATCH tr_1/tb_002: .*tb_001 is a MESSAGE`,
        'm',
      ),
    );
    expect(stdout).toContain('3 blocks of this trace not stored');
    expect(stdout).toContain('1 problem; pushed 2 traces (10 blocks) from 1 file');
    const ids = (await traceSummaries()).map((trace) => trace.id);
    expect(ids).toEqual(expect.arrayContaining(['tr_good_weather', 'tr_good_mail']));
    expect(ids).not.toContain('tr_1');
  });

  it('a trace longer than one batch refused in its last batch: says how many blocks earlier batches stored', async () => {
    const file = join(temporary, 'long-trace.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 2500; i++)
      lines.push(
        JSON.stringify({
          id: `tb_long_${i}`,
          trace_id: 'tr_long',
          sub_type: 'MESSAGE',
          payload: { role: 'user', content: `message ${i}` },
          created_at: new Date(Date.UTC(2025, 0, 1, 0, 0, 0, i)).toISOString(),
        }),
      );
    // the 2,501st block's parent is no block of the trace: its batch is refused
    lines.push(
      JSON.stringify({
        id: 'tb_long_orphan',
        trace_id: 'tr_long',
        sub_type: 'THINK',
        parent_block_id: 'tb_nowhere',
        payload: { text: 'lost' },
        created_at: '2025-01-01T00:00:03Z',
      }),
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    const { code, stdout } = await push([file]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      '501 blocks of this trace not stored, 2,000 blocks of it stored by earlier batches',
    );
    expect(stdout).toContain('1 problem; pushed 0 traces (2,000 blocks) from 1 file');
    const stored = (await traceSummaries()).find((trace) => trace.id === 'tr_long');
    expect(stored?.block_count).toBe(2000);
  });

  it('names the file and line of an unreadable line, pushes the rest, and exits 1', async () => {
    const file = join(temporary, 'bad-line.jsonl');
    writeFileSync(
      file,
      `${readFileSync(fixture('blocks.jsonl'), 'utf8').replaceAll('tr_', 'tr_line_')}{"id": oops\n`,
    );
    const { code, stderr, stdout } = await push([file, '--json']);
    expect(code).toBe(1);
    expect(stderr).toContain(`skipped ${file}:11: `);
    const report = JSON.parse(stdout) as {
      ok: boolean;
      files: { traces: number; blocks: number }[];
      problems: { line: number; code: string }[];
    };
    expect(report.ok).toBe(false);
    expect(report.files).toEqual([{ file, traces: 2, blocks: 10 }]);
    expect(report.problems).toMatchObject([{ line: 11, code: 'SKIPPED' }]);
  });

  it('reports blocks of an unknown sub_type once per value, not once per block, and pushes the rest', async () => {
    const file = join(temporary, 'unknown-sub-type.jsonl');
    const at = '2025-01-31T12:00:00.000Z';
    const block = (id: string, subType: string, parent: string | null, payload: object) =>
      `${JSON.stringify({ id, trace_id: 'tr_subtype', sub_type: subType, parent_block_id: parent, created_at: at, payload })}\n`;
    writeFileSync(
      file,
      block('tb_1', 'MESSAGE', null, { role: 'assistant', content: 'hi' }) +
        block('tb_2', 'TOOL_CALLL', 'tb_1', { name: 'a', arguments: {} }) +
        block('tb_3', 'TOOL_CALLL', 'tb_1', { name: 'b', arguments: {} }) +
        block('tb_4', 'TOOL_CALLL', 'tb_1', { name: 'c', arguments: {} }) +
        block('tb_5', 'thought', 'tb_1', { text: 'x' }),
    );
    const { code, stdout } = await push([file, '--json']);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      problems: { line: number; code: string; address: string; message: string }[];
    };
    expect(report.problems).toMatchObject([
      { line: 2, code: 'UNKNOWN_SUB_TYPE', address: 'tr_subtype/tb_2' },
      { line: 5, code: 'UNKNOWN_SUB_TYPE', address: 'tr_subtype/tb_5' },
    ]);
    expect(report.problems[0]?.message).toContain('"TOOL_CALLL": 3 blocks, not pushed');
    const stored = (await get('/v1/organizations/default/traces/tr_subtype/blocks')) as {
      blocks: { id: string }[];
    };
    expect(stored.blocks.map((stored) => stored.id)).toEqual(['tb_1']);
  });

  it('lets the collector time blocks the file gives no created_at, and a re-push stays a no-op', async () => {
    const file = join(temporary, 'untimed.jsonl');
    writeFileSync(
      file,
      [
        {
          id: 'tb_1',
          trace_id: 'tr_untimed',
          sub_type: 'MESSAGE',
          payload: { role: 'user', content: 'hi' },
        },
        {
          id: 'tb_2',
          trace_id: 'tr_untimed',
          sub_type: 'MESSAGE',
          payload: { role: 'assistant', content: 'hello' },
        },
      ]
        .map((block) => `${JSON.stringify(block)}\n`)
        .join(''),
    );
    expect((await push([file])).code).toBe(0);
    expect((await push([file])).code).toBe(0);
    const stored = (await get('/v1/organizations/default/traces/tr_untimed/blocks')) as {
      blocks: { id: string; created_at: string }[];
    };
    expect(stored.blocks.map((block) => block.id)).toEqual(['tb_1', 'tb_2']);
    for (const block of stored.blocks) expect(Date.parse(block.created_at)).not.toBeNaN();
  });

  it('draws the progress bar on a terminal only', async () => {
    const file = join(temporary, 'progress.jsonl');
    writeFileSync(file, readFileSync(fixture('blocks.jsonl'), 'utf8').replaceAll('tr_', 'tr_tty_'));
    const onTerminal = await push([file], { tty: true });
    expect(onTerminal.code).toBe(0);
    expect(onTerminal.stderr).toMatch(/progress\.jsonl \[[=> ]+\] +\d+%/);
    const piped = await push([file]);
    expect(piped.stderr).toBe('');
  });

  it('stops with a usage error (exit 2) when no key is given, the key is refused, or the organization is not the key’s', async () => {
    const io = createMemoryIo({ env: { TRACEWARDEN_URL: server.url } });
    expect(await runCli(['push', fixture('blocks.jsonl')], io)).toBe(2);
    expect(io.stderrText).toContain('no API key: pass --api-key or set TRACEWARDEN_API_KEY');

    const refused = await push([fixture('blocks.jsonl'), '--api-key', 'twk_not_a_key']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('refused the API key (401 UNAUTHORIZED)');

    const otherOrg = await push([fixture('blocks.jsonl'), '--org', 'someone-else']);
    expect(otherOrg.code).toBe(2);
    expect(otherOrg.stderr).toContain('does not belong to organization "someone-else"');

    const badUrl = await push([fixture('blocks.jsonl'), '--url', 'ftp://collector']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('--url must be');
  });

  it('exits 1 naming the URL when no collector answers, having pushed nothing', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const { code, stderr } = await push([
      fixture('blocks.jsonl'),
      '--url',
      `http://127.0.0.1:${port}`,
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `cannot reach the collector at http://127.0.0.1:${port} (ECONNREFUSED)`,
    );
  });

  it('stops with exit 1 naming the file and line when the collector keeps failing past --timeout', async () => {
    // answers the check before the push, then 503 to every batch
    const failing = createHttpServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(request.method === 'GET' ? 200 : 503, {
          'content-type': 'application/json',
        });
        response.end(
          request.method === 'GET'
            ? '{"traces":[],"next_cursor":null}'
            : '{"error":{"code":"UNAVAILABLE","http_status":503,"message":"draining","details":{}}}',
        );
      });
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(failing.address() as { port: number }).port}`;
    try {
      const file = fixture('blocks.jsonl');
      const { code, stderr } = await push([file, '--url', url, '--timeout', '1']);
      expect(code).toBe(1);
      expect(stderr).toContain(`${file}:1: trace tr_weather was not stored`);
      expect(stderr).toContain('503 UNAVAILABLE: draining');
      expect(stderr).toContain('run the same command again when the collector is back');
    } finally {
      failing.closeAllConnections();
      await new Promise<void>((resolve) => failing.close(() => resolve()));
    }
  });

  it('stops having pushed nothing when the URL is no collector: a wrong path, an error, or a page that answers 200', async () => {
    const wrongPath = await push([fixture('blocks.jsonl'), '--url', `${server.url}/v1`]);
    expect(wrongPath.code).toBe(2);
    expect(wrongPath.stderr).toContain(`no collector API at ${server.url}/v1 (404`);
    expect(wrongPath.stderr).not.toContain('does not belong to organization');
    // a login page or proxy that answers 200 HTML to everything, and one that answers 500
    for (const [status, body, expected] of [
      [200, '<html>Sign in</html>', 'no tracewarden collector’s JSON'],
      [500, 'oops', 'answered 500'],
    ] as const) {
      const posts: string[] = [];
      const impostor = createHttpServer((request, response) => {
        if (request.method === 'POST') posts.push(request.url ?? '');
        request.resume();
        request.on('end', () => {
          response.writeHead(status, { 'content-type': 'text/html' });
          response.end(body);
        });
      });
      await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(impostor.address() as { port: number }).port}`;
      try {
        const result = await push([fixture('blocks.jsonl'), '--url', url]);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(expected);
        expect(result.stdout).not.toContain('pushed');
        expect(posts).toEqual([]);
      } finally {
        impostor.closeAllConnections();
        await new Promise<void>((resolve) => impostor.close(() => resolve()));
      }
    }
  });

  it('refuses a --dataset name the collector would refuse before pushing anything (exit 2)', async () => {
    const file = join(temporary, 'dataset-name.jsonl');
    writeFileSync(
      file,
      readFileSync(fixture('blocks.jsonl'), 'utf8').replaceAll('tr_', 'tr_dataset_name_'),
    );
    const result = await push([file, '--dataset', 'bad/name']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a dataset name the collector accepts');
    const ids = (await traceSummaries()).map((trace) => trace.id);
    expect(ids.some((id) => id.startsWith('tr_dataset_name_'))).toBe(false);
  });

  it('sends blocks as the file holds them: what the collector refuses is reported, never quietly replaced', async () => {
    const file = join(temporary, 'loose.jsonl');
    const base = {
      trace_id: 'tr_loose',
      sub_type: 'MESSAGE',
      payload: { role: 'user', content: 'hi' },
    };
    writeFileSync(
      file,
      `${[
        { ...base, id: 'tb_loose_1', metadata: ['tag-a'], created_at: '2025-01-01T00:00:00Z' },
        { ...base, id: 'tb_loose_2', extra: 0.9, created_at: 1735689600000 },
      ]
        .map((block) => JSON.stringify(block))
        .join('\n')}\n`,
    );
    const { code, stdout } = await push([file]);
    expect(code).toBe(1);
    expect(stdout).toContain('VALIDATION');
    expect(stdout).not.toMatch(/^ok:/m);
    const ids = (await traceSummaries()).map((trace) => trace.id);
    expect(ids).not.toContain('tr_loose');
  });

  it('exits 2 for a missing file', async () => {
    const { code, stderr } = await push([join(temporary, 'nope.jsonl')]);
    expect(code).toBe(2);
    expect(stderr).toContain('nope.jsonl');
  });
});
