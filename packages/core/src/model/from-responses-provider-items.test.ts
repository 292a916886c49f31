import { describe, expect, it } from 'vitest';
import { blocksToEvents } from '../convert/blocks-to-events.js';
import { eventsToBlocks } from '../convert/events-to-blocks.js';
import { validateBlocks } from '../validation/index.js';
import { parseTrace } from './parse-trace.js';

// Responses API items that are no event of their own and that a reader cannot resolve (an
// `item_reference`, remote MCP approvals) are kept, in order, in the block metadata of the event
// after them: a run that holds them is read, converted and checked, not refused.

const run = [
  { role: 'user', content: [{ type: 'input_text', text: 'Mail Emma that I will join.' }] },
  { type: 'item_reference', id: 'msg_earlier' },
  {
    type: 'mcp_approval_request',
    id: 'mcpr_1',
    server_label: 'gmail',
    name: 'send_email',
    arguments: '{"to":"emma@acme.example"}',
  },
  { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: true, reason: null },
  {
    id: 'mcp_1',
    type: 'mcp_call',
    server_label: 'gmail',
    name: 'send_email',
    arguments: '{"to":"emma@acme.example"}',
    output: '{"status":"sent"}',
    error: null,
  },
  {
    id: 'msg_2',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
  },
  { type: 'item_reference', id: 'msg_last' },
];

describe('Responses items no event holds', () => {
  it('are kept in the next event’s block metadata (the last event’s at the end), through blocks and back', () => {
    const blocks = eventsToBlocks(parseTrace(run), { startTime: 0 });
    expect(validateBlocks(blocks).errors).toEqual([]);
    const kept = blocks
      .map((block) => block.metadata.provider_items)
      .filter((items) => items !== undefined);
    expect(kept).toEqual([[run[1], run[2], run[3]], [run[6]]]);
    // the MCP call itself is read as the call it is
    expect(
      blocks.filter((block) => block.sub_type === 'TOOL_CALL').map((block) => block.payload.name),
    ).toEqual(['send_email']);
    const again = eventsToBlocks(parseTrace(blocksToEvents(blocks)), { startTime: 0 });
    expect(
      again.map((block) => block.metadata.provider_items).filter((items) => items !== undefined),
    ).toEqual(kept);
  });
});
