import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryIo } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

// `convert` of an OpenAI Responses API item list keeps each item's own id (fc_..., rs_...,
// msg_...) and a reasoning item's encrypted content, in the blocks' metadata, and back.
const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-responses-ids-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(temporary, name);
  writeFileSync(path, text);
  return path;
}

async function run(argv: string[]) {
  const io = createMemoryIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

type JsonObject = Record<string, unknown>;

const items = [
  { role: 'user', content: [{ type: 'input_text', text: 'Summarise my inbox.' }] },
  {
    type: 'reasoning',
    id: 'rs_1',
    summary: [{ type: 'summary_text', text: 'Inbox first.' }],
    encrypted_content: 'gAAAA-one',
  },
  {
    type: 'function_call',
    id: 'fc_1',
    call_id: 'call_1',
    name: 'get_inbox',
    arguments: '{"limit":2}',
    status: 'completed',
  },
  { type: 'function_call_output', id: 'fco_1', call_id: 'call_1', output: '2 emails' },
  { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'gAAAA-two' },
  {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Two emails.' }],
  },
];

describe('convert of a Responses API item list keeps the items’ ids', () => {
  it('to blocks (valid, ids in metadata), to events and to the same blocks again', async () => {
    const input = file('responses.json', JSON.stringify(items));
    const blocksPath = join(temporary, 'blocks.jsonl');
    const toBlocks = await run(['convert', input, '--to', 'jsonl', '-o', blocksPath]);
    expect(toBlocks.stderr).toBe('');
    expect(toBlocks.code).toBe(0);
    expect((await run(['validate', blocksPath])).code).toBe(0);
    const blocksText = readFileSync(blocksPath, 'utf8');
    const blocks = blocksText
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as JsonObject);
    const bySubType = (subType: string) => blocks.filter((block) => block.sub_type === subType);
    const metadataOf = (block: JsonObject | undefined) => block?.metadata as JsonObject;

    const [call] = bySubType('TOOL_CALL');
    expect(call?.payload).toStrictEqual({
      call_id: 'call_1',
      name: 'get_inbox',
      arguments: { limit: 2 },
    });
    expect(metadataOf(call).chat_event).toStrictEqual({ item_id: 'fc_1', status: 'completed' });
    const [result] = bySubType('TOOL_RESULT');
    expect(result?.payload).toStrictEqual({ call_id: 'call_1', output: '2 emails' });
    expect(metadataOf(result).chat_event).toStrictEqual({ item_id: 'fco_1' });
    expect(bySubType('MESSAGE').map((block) => metadataOf(block).reasoning_items)).toStrictEqual([
      undefined,
      [{ id: 'rs_1', encrypted_content: 'gAAAA-one' }],
      [{ id: 'rs_2', encrypted_content: 'gAAAA-two' }],
    ]);
    expect(bySubType('MESSAGE')[2]?.payload).toMatchObject({ id: 'msg_1' });
    expect(bySubType('THINK').map((block) => block.payload)).toStrictEqual([
      { text: 'Inbox first.' },
    ]);

    const back = await run(['convert', blocksPath, '--to', 'events']);
    expect(back.code).toBe(0);
    expect(back.stdout).toContain('"item_id": "fc_1"');
    expect(back.stdout).toContain('"encrypted_content": "gAAAA-two"');
    const again = await run(['convert', file('back.json', back.stdout), '--to', 'jsonl']);
    expect(again.stderr).toBe('');
    expect(again.stdout).toBe(blocksText);
  });
});
