import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTrace } from '@tracewarden/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryIo } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

// What a trace file holds besides events survives convert: to blocks, and back to events.
const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-trace-fields-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

let files = 0;
function file(name: string, text: string): string {
  const path = join(temporary, `${files++}-${name}`);
  writeFileSync(path, text);
  return path;
}

async function run(argv: string[]) {
  const io = createMemoryIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

const lines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));

/** input -> JSONL blocks (which must validate) -> events; returns both. */
async function roundTrip(name: string, text: string) {
  const input = file(name, text);
  const blocksPath = join(temporary, `${files++}-blocks.jsonl`);
  const toBlocks = await run(['convert', input, '--to', 'jsonl', '-o', blocksPath]);
  expect(toBlocks.stderr).toBe('');
  expect(toBlocks.code).toBe(0);
  expect((await run(['validate', blocksPath])).code).toBe(0);
  const back = await run(['convert', blocksPath, '--to', 'events']);
  expect(back.code).toBe(0);
  // and once more to blocks: the same blocks
  const document = back.stdout.startsWith('[') || back.stdout.startsWith('{\n');
  const again = await run([
    'convert',
    file(document ? 'back.json' : 'back.jsonl', back.stdout),
    '--to',
    'jsonl',
  ]);
  const blocksText = readFileSync(blocksPath, 'utf8');
  expect(again.stdout).toBe(blocksText);
  return { blocks: lines(blocksText), events: back.stdout };
}

const run7 = [
  { role: 'user', content: 'Pay my bill' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'send_money', arguments: '{"to":"X"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'sent' },
];

describe('convert keeps what a trace file holds besides events', () => {
  it("a trace's metadata and Explorer annotations (annotated event list)", async () => {
    const metadata = { id: 'run-7', model: 'gpt-4o', injection: true };
    const annotations = [
      { content: 'exfiltration', address: 'messages.1.tool_calls.0', extra_metadata: { by: 'x' } },
    ];
    const { blocks, events } = await roundTrip(
      'annotated.json',
      JSON.stringify({ messages: run7, metadata, annotations }),
    );
    expect(blocks[0].trace_id).toBe('run-7');
    expect(blocks[0].metadata.chat_trace).toStrictEqual({ metadata, annotations });
    expect(JSON.parse(events)).toStrictEqual({ messages: parseTrace(run7), metadata, annotations });
  });

  it("an Explorer raw event list's { metadata } element, as the trace's metadata", async () => {
    const { blocks, events } = await roundTrip(
      'raw.json',
      JSON.stringify([{ metadata: { id: 'run-8', attack: 'none' } }, ...run7]),
    );
    expect(blocks[0].metadata.chat_trace).toStrictEqual({
      metadata: { id: 'run-8', attack: 'none' },
    });
    expect(JSON.parse(events)).toStrictEqual({
      messages: parseTrace(run7),
      metadata: { id: 'run-8', attack: 'none' },
    });
  });

  it("an AgentDojo run's own fields (suite, tasks, attack, utility, security)", async () => {
    const fields = {
      suite_name: 'banking',
      user_task_id: 'user_task_0',
      injection_task_id: 'injection_task_1',
      attack_type: 'important_instructions',
      utility: false,
      security: true,
      duration: 3.2,
    };
    const { blocks, events } = await roundTrip(
      'agentdojo.json',
      JSON.stringify({ ...fields, messages: run7 }),
    );
    expect(blocks[0].metadata.chat_trace).toStrictEqual(fields);
    expect(JSON.parse(events)).toStrictEqual({ messages: parseTrace(run7), ...fields });
  });

  it("a JSONL dataset's header line, on each of its traces, written back as the header", async () => {
    const header = { metadata: { accuracy: 0.42, agent: 'openhands' }, name: 'swe-bench' };
    const text = [header, { messages: run7, metadata: { id: 't1', score: 1 } }, run7]
      .map((value) => JSON.stringify(value))
      .join('\n');
    const { blocks, events } = await roundTrip('dataset.jsonl', `${text}\n`);
    const firsts = blocks.filter((block) => block.metadata.chat_dataset !== undefined);
    // a trace without an id is named by its content (as push names it)
    expect(firsts.map((block) => block.trace_id)).toStrictEqual([
      't1',
      expect.stringMatching(/^tr_[0-9a-f]{26}$/),
    ]);
    expect(firsts[0].metadata.chat_dataset).toStrictEqual(header);
    expect(lines(events)).toStrictEqual([
      header,
      { messages: parseTrace(run7), metadata: { id: 't1', score: 1 } },
      { messages: parseTrace(run7), metadata: { trace_id: firsts[1].trace_id } },
    ]);
  });

  it("a JSON dataset's name, metadata and other fields (one trace: still a dataset)", async () => {
    const { blocks, events } = await roundTrip(
      'dataset.json',
      JSON.stringify({ name: 'runs', metadata: { accuracy: 0.9 }, owner: 'qa', traces: [run7] }),
    );
    expect(blocks[0].trace_id).toMatch(/^tr_[0-9a-f]{26}$/);
    expect(lines(events)).toStrictEqual([
      { name: 'runs', metadata: { accuracy: 0.9 }, owner: 'qa' },
      { messages: parseTrace(run7), metadata: { trace_id: blocks[0].trace_id } },
    ]);
  });

  it('a trace id, which events written for several traces carry and give back', async () => {
    const converted = await run([
      'convert',
      file('two.jsonl', `${JSON.stringify(run7)}\n${JSON.stringify(run7)}\n`),
      '--to',
      'jsonl',
    ]);
    // the same events twice: two traces all the same, the second named <id>_2, without a warning
    const [first, second] = [...new Set(lines(converted.stdout).map((block) => block.trace_id))];
    expect(second).toBe(`${first}_2`);
    expect(converted.stderr).toBe('');
    // block files name their traces: tr_alpha and tr_beta must come back as themselves
    const blocks = converted.stdout
      .replaceAll(`"${first}"`, '"tr_alpha"')
      .replaceAll(`"${second}"`, '"tr_beta"');
    const events = (await run(['convert', file('two-blocks.jsonl', blocks), '--to', 'events']))
      .stdout;
    expect(lines(events).map((trace) => trace.metadata)).toStrictEqual([
      { trace_id: 'tr_alpha' },
      { trace_id: 'tr_beta' },
    ]);
    const back = await run(['convert', file('two-events.jsonl', events), '--to', 'jsonl']);
    expect(back.stdout).toBe(blocks);
  });

  it("a one-trace file's trace id, kept in --to events and given back", async () => {
    // a block file of one trace, as the JSONL sink writes it: its id is no hash of its events
    const sink = `${JSON.stringify({ id: 'tb_1', trace_id: 'tr_01JD3X4Y5Z', sub_type: 'MESSAGE', payload: { role: 'user', content: 'hi' } })}\n`;
    const events = await run(['convert', file('sink.jsonl', sink), '--to', 'events']);
    expect(events.code).toBe(0);
    expect(JSON.parse(events.stdout)).toStrictEqual({
      messages: [{ role: 'user', content: 'hi' }],
      metadata: { trace_id: 'tr_01JD3X4Y5Z' },
    });
    const back = await run(['convert', file('sink.events.json', events.stdout), '--to', 'jsonl']);
    expect(lines(back.stdout).map((block) => block.trace_id)).toStrictEqual(['tr_01JD3X4Y5Z']);
    // events whose metadata holds only their trace id: events -> blocks -> events -> blocks
    const { blocks, events: again } = await roundTrip(
      'named.jsonl',
      `${JSON.stringify({ messages: run7, metadata: { trace_id: 'tr_named' } })}\n`,
    );
    expect(blocks[0].trace_id).toBe('tr_named');
    expect(JSON.parse(again)).toStrictEqual({
      messages: parseTrace(run7),
      metadata: { trace_id: 'tr_named' },
    });
    // an Explorer list's { metadata } element holding only the id, too
    const explorer = await roundTrip(
      'explorer.json',
      JSON.stringify([{ metadata: { trace_id: 'tr_explorer' } }, ...run7]),
    );
    expect(JSON.parse(explorer.events).metadata).toStrictEqual({ trace_id: 'tr_explorer' });
  });

  it('a one-trace file whose id is its content hash stays a plain event list', async () => {
    const { blocks, events } = await roundTrip('plain.json', JSON.stringify(run7));
    expect(blocks[0].trace_id).toMatch(/^tr_[0-9a-f]{26}$/);
    expect(JSON.parse(events)).toStrictEqual(parseTrace(run7));
  });

  it('says so when a trace without events has fields no block can carry', async () => {
    const input = file('only-metadata.json', JSON.stringify([{ metadata: { id: 'm', score: 0 } }]));
    const convert = await run(['convert', input, '--to', 'jsonl']);
    expect(convert.stdout).toBe('');
    expect(convert.stderr).toBe(
      `${input}:1: warning EMPTY_TRACE m: no events, so no blocks to keep its metadata on: not written\n`,
    );
    expect(convert.code).toBe(0);
    // a trace with no events at all is not dropped in silence either (--to events keeps it)
    const emptyFile = file('empty.json', '[]');
    const empty = await run(['convert', emptyFile, '--to', 'jsonl']);
    expect(empty.stderr).toBe(
      `${emptyFile}:1: warning EMPTY_TRACE #0: no events, so no blocks: not written (convert --to events keeps it)\n`,
    );
    expect(empty.code).toBe(0);
  });
});
