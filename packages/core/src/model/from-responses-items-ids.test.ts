import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blocksToEvents } from '../convert/blocks-to-events.js';
import { eventsToBlocks } from '../convert/events-to-blocks.js';
import { validateBlocks } from '../validation/index.js';
import type { Block } from './blocks.js';
import { convertResponsesItems, fromResponsesItems } from './from-responses-items.js';
import { parseTrace } from './parse-trace.js';

// A Responses API item's own id (`msg_...`, `rs_...`, `fc_...`) survives import: on the chat
// event, and in the blocks where seed 002 has room for it (metadata), never as a payload field
// of a TOOL_CALL, TOOL_RESULT or THINK.

type JsonObject = Record<string, unknown>;

const blocksOf = (items: unknown[]) => eventsToBlocks(parseTrace(items), { startTime: 0 });
const ofType = (blocks: Block[], subType: Block['sub_type']) =>
  blocks.filter((block) => block.sub_type === subType);
const chatEventOf = (block: Block) => (block.metadata as JsonObject).chat_event as JsonObject;

const run = [
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
  // reasoning without a summary, as the API returns it unless one is asked for
  { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'gAAAA-two' },
  {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Two emails.', annotations: [] }],
  },
];

describe('fromResponsesItems keeps the items’ own ids', () => {
  it('a function_call’s id (fc_...) and status go to its TOOL_CALL’s metadata.chat_event', () => {
    const events = fromResponsesItems(run);
    expect((events[1]?.tool_calls as JsonObject[] | undefined)?.[0]).toStrictEqual({
      id: 'call_1',
      item_id: 'fc_1',
      status: 'completed',
      type: 'function',
      function: { name: 'get_inbox', arguments: '{"limit":2}' },
    });
    const [call] = ofType(blocksOf(run), 'TOOL_CALL');
    expect(call?.payload).toStrictEqual({
      call_id: 'call_1',
      name: 'get_inbox',
      arguments: { limit: 2 },
    });
    expect(chatEventOf(call as Block)).toStrictEqual({ item_id: 'fc_1', status: 'completed' });
  });

  it('a function_call_output’s id goes to its TOOL_RESULT’s metadata.chat_event', () => {
    expect(fromResponsesItems(run)[2]).toStrictEqual({
      role: 'tool',
      item_id: 'fco_1',
      tool_call_id: 'call_1',
      content: '2 emails',
    });
    const [result] = ofType(blocksOf(run), 'TOOL_RESULT');
    expect(result?.payload).toStrictEqual({ call_id: 'call_1', output: '2 emails' });
    expect(chatEventOf(result as Block)).toStrictEqual({ item_id: 'fco_1' });
  });

  it('reasoning items’ ids and encrypted_content go to their MESSAGE’s metadata, text-less ones too', () => {
    const events = fromResponsesItems(run);
    expect(events[1]).toMatchObject({
      role: 'assistant',
      reasoning_content: 'Inbox first.',
      tracewarden: {
        metadata: { reasoning_items: [{ id: 'rs_1', encrypted_content: 'gAAAA-one' }] },
      },
    });
    // the reasoning without text rides on the next assistant message, the one of msg_1
    expect(events[3]).toStrictEqual({
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'text', text: 'Two emails.', annotations: [] }],
      tracewarden: {
        metadata: { reasoning_items: [{ id: 'rs_2', encrypted_content: 'gAAAA-two' }] },
      },
    });
    const blocks = blocksOf(run);
    expect(validateBlocks(blocks).errors).toStrictEqual([]);
    const messages = ofType(blocks, 'MESSAGE');
    expect(messages.map((block) => block.metadata.reasoning_items)).toStrictEqual([
      undefined,
      [{ id: 'rs_1', encrypted_content: 'gAAAA-one' }],
      [{ id: 'rs_2', encrypted_content: 'gAAAA-two' }],
    ]);
    // the THINK payload is the seed's `{ text }` alone
    expect(ofType(blocks, 'THINK').map((block) => block.payload)).toStrictEqual([
      { text: 'Inbox first.' },
    ]);
    // a message item's id stays on its event, so in its MESSAGE payload as any event's field
    expect(messages[2]?.payload).toMatchObject({ id: 'msg_1', role: 'assistant' });
  });

  it('several reasoning items before one message are kept in order; their text list is left out', () => {
    const events = fromResponsesItems([
      { role: 'user', content: 'Go.' },
      { type: 'reasoning', id: 'rs_a', summary: [{ type: 'summary_text', text: 'A.' }] },
      {
        type: 'reasoning',
        id: 'rs_b',
        summary: [],
        content: [{ type: 'reasoning_text', text: 'B.' }],
        status: 'completed',
      },
      { type: 'reasoning', summary: [] },
      { role: 'assistant', content: 'Done.' },
    ]);
    expect(events[1]).toStrictEqual({
      role: 'assistant',
      content: 'Done.',
      reasoning_content: 'A.\n\nB.',
      tracewarden: {
        metadata: { reasoning_items: [{ id: 'rs_a' }, { id: 'rs_b', status: 'completed' }] },
      },
    });
  });

  it('reasoning that holds only encrypted content and ends the list is an assistant message of its own', () => {
    const items = [
      { role: 'user', content: 'Go.' },
      { type: 'reasoning', id: 'rs_9', summary: [], encrypted_content: 'gAAAA-nine' },
    ];
    const { events, sources } = convertResponsesItems(items);
    expect(events[1]).toStrictEqual({
      role: 'assistant',
      content: null,
      tracewarden: {
        metadata: { reasoning_items: [{ id: 'rs_9', encrypted_content: 'gAAAA-nine' }] },
      },
    });
    expect(sources).toStrictEqual([0, 1]);
    const blocks = blocksOf(items);
    expect(validateBlocks(blocks).errors).toStrictEqual([]);
    expect(blocks[1]?.metadata.reasoning_items).toStrictEqual([
      { id: 'rs_9', encrypted_content: 'gAAAA-nine' },
    ]);
  });

  it('custom, computer, hosted shell and MCP calls keep their item ids and other fields', () => {
    const events = fromResponsesItems([
      { role: 'user', content: 'Work.' },
      { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_c', name: 'patch', input: 'x' },
      { type: 'custom_tool_call_output', id: 'ctco_1', call_id: 'call_c', output: 'ok' },
      {
        type: 'computer_call',
        id: 'cu_1',
        call_id: 'call_u',
        action: { type: 'click', x: 1, y: 2 },
        pending_safety_checks: [{ id: 'sc_1', code: 'malicious_instructions' }],
        status: 'completed',
      },
      {
        type: 'computer_call_output',
        id: 'cuo_1',
        call_id: 'call_u',
        output: { type: 'computer_screenshot', image_url: 'data:,' },
        acknowledged_safety_checks: [{ id: 'sc_1' }],
      },
      {
        type: 'shell_call',
        id: 'sh_1',
        call_id: 'call_s',
        action: { commands: ['ls'] },
        environment: { type: 'container_reference', container_id: 'cntr_1' },
      },
      {
        type: 'mcp_call',
        id: 'mcp_1',
        server_label: 'docs',
        name: 'search',
        arguments: '{"q":"x"}',
        output: 'found',
      },
    ]);
    const calls = events.flatMap((event) => (event.tool_calls as JsonObject[] | undefined) ?? []);
    expect(calls.map(({ function: _, ...call }) => call)).toStrictEqual([
      { id: 'call_c', item_id: 'ctc_1', type: 'custom', custom: { name: 'patch', input: 'x' } },
      {
        id: 'call_u',
        item_id: 'cu_1',
        type: 'computer_call',
        pending_safety_checks: [{ id: 'sc_1', code: 'malicious_instructions' }],
        status: 'completed',
      },
      {
        id: 'call_s',
        item_id: 'sh_1',
        type: 'shell_call',
        provider_executed: true,
      },
      {
        id: 'mcp_1',
        server_label: 'docs',
        type: 'mcp_call',
        provider_executed: true,
      },
    ]);
    const outputs = events.filter((event) => event.role === 'tool');
    expect(outputs[0]).toMatchObject({ item_id: 'ctco_1', tool_call_id: 'call_c' });
    expect(outputs[1]).toMatchObject({
      item_id: 'cuo_1',
      tool_call_id: 'call_u',
      acknowledged_safety_checks: [{ id: 'sc_1' }],
    });
  });

  it('a function_call without call_id goes by its id, which is not repeated as item_id', () => {
    const [, message] = fromResponsesItems([
      { role: 'user', content: 'Go.' },
      { type: 'function_call', id: 'fc_7', name: 'f', arguments: '{}' },
    ]);
    expect(message?.tool_calls).toStrictEqual([
      { id: 'fc_7', type: 'function', function: { name: 'f', arguments: '{}' } },
    ]);
  });

  it('blocks -> events -> blocks keeps every id (the way back, blocksToEvents)', () => {
    const blocks = blocksOf(run);
    const events = blocksToEvents(blocks);
    const again = eventsToBlocks(parseTrace(events), { startTime: 0 });
    const strip = (list: Block[]) =>
      list.map(({ sub_type, payload, metadata }) => ({ sub_type, payload, metadata }));
    expect(strip(again)).toStrictEqual(strip(blocks));
    // and the events are the imported ones
    expect(parseTrace(events)).toStrictEqual(parseTrace(run));
  });
});

// Generated item lists: every kind of item, each with or without its own id, ids unique.
const itemKindArbitrary = fc.constantFrom(
  'user',
  'assistant_message',
  'reasoning_text',
  'reasoning_encrypted',
  'function_call',
  'custom_tool_call',
  'computer_call',
  'output',
);

function itemsOf(kinds: readonly string[], withIds: readonly boolean[]): JsonObject[] {
  const items: JsonObject[] = [];
  const open: string[] = [];
  let n = 0;
  kinds.forEach((kind, k) => {
    const id = (prefix: string) => (withIds[k % withIds.length] ? { id: `${prefix}_${n++}` } : {});
    const callId = `call_${n++}`;
    switch (kind) {
      case 'user':
        items.push({ role: 'user', content: [{ type: 'input_text', text: 'go' }] });
        break;
      case 'assistant_message':
        items.push({
          type: 'message',
          ...id('msg'),
          role: 'assistant',
          content: [{ type: 'output_text', text: 'ok' }],
        });
        break;
      case 'reasoning_text':
        items.push({
          type: 'reasoning',
          ...id('rs'),
          summary: [{ type: 'summary_text', text: `thought ${n}` }],
        });
        break;
      case 'reasoning_encrypted':
        items.push({ type: 'reasoning', ...id('rs'), summary: [], encrypted_content: `gA${n++}` });
        break;
      case 'function_call':
        items.push({
          type: 'function_call',
          ...id('fc'),
          call_id: callId,
          name: 'f',
          arguments: '{}',
        });
        open.push(callId);
        break;
      case 'custom_tool_call':
        items.push({
          type: 'custom_tool_call',
          ...id('ctc'),
          call_id: callId,
          name: 'g',
          input: '',
        });
        open.push(callId);
        break;
      case 'computer_call':
        items.push({
          type: 'computer_call',
          ...id('cu'),
          call_id: callId,
          action: { type: 'wait' },
        });
        open.push(callId);
        break;
      default: {
        const answered = open.shift();
        if (answered !== undefined)
          items.push({
            type: 'function_call_output',
            ...id('fco'),
            call_id: answered,
            output: 'r',
          });
      }
    }
  });
  return items;
}

/** Every id and encrypted content the blocks hold where an importer keeps a Responses item's. */
function keptIn(blocks: readonly Block[]): Set<unknown> {
  const kept = new Set<unknown>();
  for (const block of blocks) {
    const payload = block.payload as JsonObject;
    const metadata = block.metadata as JsonObject;
    const chatEvent = (metadata.chat_event ?? {}) as JsonObject;
    if (block.sub_type === 'MESSAGE') kept.add(payload.id);
    if (block.sub_type === 'TOOL_CALL') kept.add(chatEvent.id ?? payload.call_id);
    if (block.sub_type === 'TOOL_RESULT') kept.add(chatEvent.tool_call_id ?? payload.call_id);
    kept.add(chatEvent.item_id);
    for (const item of (metadata.reasoning_items ?? []) as JsonObject[]) {
      kept.add(item.id);
      kept.add(item.encrypted_content);
    }
  }
  return kept;
}

describe('fromResponsesItems keeps every item id (properties)', () => {
  it('each item’s id and call_id (and encrypted content) is in valid blocks, and back', () => {
    fc.assert(
      fc.property(
        fc.array(itemKindArbitrary, { minLength: 1, maxLength: 14 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
        (kinds, withIds) => {
          const items = itemsOf(kinds, withIds);
          const expected = items.flatMap((item) =>
            [item.id, item.call_id, item.encrypted_content].filter((id) => id !== undefined),
          );
          const blocks = eventsToBlocks(parseTrace(items), { startTime: 0 });
          expect(validateBlocks(blocks).errors).toStrictEqual([]);
          const kept = keptIn(blocks);
          for (const id of expected) expect(kept).toContain(id);
          // nothing of ours in a TOOL_CALL, TOOL_RESULT or THINK payload but the seed's fields
          for (const block of blocks) {
            const keys = Object.keys(block.payload).sort();
            if (block.sub_type === 'TOOL_CALL')
              expect(keys).toStrictEqual(['arguments', 'call_id', 'name']);
            if (block.sub_type === 'TOOL_RESULT') expect(keys).toStrictEqual(['call_id', 'output']);
            if (block.sub_type === 'THINK') expect(keys).toStrictEqual(['text']);
          }
          // the way back and in again keeps them all
          const again = eventsToBlocks(parseTrace(blocksToEvents(blocks)), { startTime: 0 });
          const keptAgain = keptIn(again);
          for (const id of expected) expect(keptAgain).toContain(id);
        },
      ),
      { numRuns: 300 },
    );
  });
});
