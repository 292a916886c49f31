import type {
  ResponseContentPartAddedEvent,
  ResponseContentPartDoneEvent,
  ResponseCustomToolCallInputDeltaEvent,
  ResponseCustomToolCallInputDoneEvent,
  ResponseFunctionCallArgumentsDeltaEvent,
  ResponseFunctionCallArgumentsDoneEvent,
  ResponseOutputItem,
  ResponseOutputItemAddedEvent,
  ResponseOutputItemDoneEvent,
  ResponseReasoningSummaryPartAddedEvent,
  ResponseReasoningSummaryPartDoneEvent,
  ResponseReasoningSummaryTextDeltaEvent,
  ResponseReasoningSummaryTextDoneEvent,
  ResponseShellCallCommandAddedEvent,
  ResponseShellCallCommandDeltaEvent,
  ResponseShellCallCommandDoneEvent,
  ResponseTextDeltaEvent,
  ResponseTextDoneEvent,
} from 'openai/resources/responses/responses';
import type { PlannedReply } from '../turns/plan-reply.js';
import { splitIntoChunks } from '../turns/split-into-chunks.js';
import {
  buildOutputItems,
  buildResponse,
  isIncomplete,
  type WireResponse,
} from './build-response.js';

/**
 * A lifecycle event carrying a whole `response` snapshot.
 *
 * @internal
 */
export interface WireResponseLifecycleEvent {
  type: 'response.created' | 'response.in_progress' | 'response.completed' | 'response.incomplete';
  sequence_number: number;
  response: WireResponse;
}

/**
 * One typed event of a streamed response, as sent on the wire.
 *
 * @internal
 */
export type WireResponseStreamEvent =
  | WireResponseLifecycleEvent
  | ResponseOutputItemAddedEvent
  | ResponseOutputItemDoneEvent
  | ResponseContentPartAddedEvent
  | ResponseContentPartDoneEvent
  | ResponseTextDeltaEvent
  | ResponseTextDoneEvent
  | ResponseFunctionCallArgumentsDeltaEvent
  | ResponseFunctionCallArgumentsDoneEvent
  | ResponseCustomToolCallInputDeltaEvent
  | ResponseCustomToolCallInputDoneEvent
  | ResponseShellCallCommandAddedEvent
  | ResponseShellCallCommandDeltaEvent
  | ResponseShellCallCommandDoneEvent
  | ResponseReasoningSummaryPartAddedEvent
  | ResponseReasoningSummaryPartDoneEvent
  | ResponseReasoningSummaryTextDeltaEvent
  | ResponseReasoningSummaryTextDoneEvent;

/**
 * Builds the typed event sequence of a streamed response, in the real API's order:
 * `response.created`, `response.in_progress`, then per output item `output_item.added`, its
 * part/delta/done events (`custom_tool_call_input.delta` / `.done` for a custom tool call,
 * `shell_call_command.added` / `.delta` / `.done` per command of a `shell_call`; the other
 * built-in calls have none) and `output_item.done`, and finally `response.completed` (or
 * `response.incomplete`). `sequence_number` counts from 0.
 *
 * @internal
 * @param reply - The planned reply.
 * @param request - The parsed request body.
 * @returns The events in order.
 */
export function buildResponseEvents(
  reply: PlannedReply,
  request: Record<string, unknown>,
): WireResponseStreamEvent[] {
  const events: WireResponseStreamEvent[] = [];
  let sequence = 0;
  const next = (): number => sequence++;
  const snapshot = buildResponse(reply, request, 'in_progress');
  events.push({ type: 'response.created', sequence_number: next(), response: snapshot });
  events.push({ type: 'response.in_progress', sequence_number: next(), response: snapshot });

  const items = buildOutputItems(reply);
  let outputIndex = 0;
  // every output item opens and closes the same way, its own events in between
  const itemAdded = (item: ResponseOutputItem): void => {
    events.push({
      type: 'response.output_item.added',
      sequence_number: next(),
      output_index: outputIndex,
      item,
    });
  };
  const itemDone = (item: ResponseOutputItem): void => {
    events.push({
      type: 'response.output_item.done',
      sequence_number: next(),
      output_index: outputIndex,
      item,
    });
    outputIndex += 1;
  };
  if (items.reasoning) {
    const item = items.reasoning;
    const text = item.summary[0]?.text ?? '';
    const at = { item_id: item.id, output_index: outputIndex, summary_index: 0 };
    itemAdded({ ...item, summary: [] });
    events.push({
      type: 'response.reasoning_summary_part.added',
      sequence_number: next(),
      ...at,
      part: { type: 'summary_text', text: '' },
    });
    for (const delta of splitIntoChunks(text, reply.chunkSize)) {
      events.push({
        type: 'response.reasoning_summary_text.delta',
        sequence_number: next(),
        ...at,
        delta,
      });
    }
    events.push({
      type: 'response.reasoning_summary_text.done',
      sequence_number: next(),
      ...at,
      text,
    });
    events.push({
      type: 'response.reasoning_summary_part.done',
      sequence_number: next(),
      ...at,
      part: { type: 'summary_text', text },
    });
    itemDone(item);
  }
  // the hosted tools' items: whole in their added and done events
  for (const hosted of reply.hostedItems as unknown as ResponseOutputItem[]) {
    itemAdded(hosted);
    itemDone(hosted);
  }
  if (items.message) {
    const item = items.message;
    const part = item.content[0];
    const text = part?.type === 'output_text' ? part.text : '';
    const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
    itemAdded({ ...item, status: 'in_progress', content: [] });
    events.push({
      type: 'response.content_part.added',
      sequence_number: next(),
      ...at,
      part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
    });
    for (const delta of splitIntoChunks(text, reply.chunkSize)) {
      events.push({
        type: 'response.output_text.delta',
        sequence_number: next(),
        ...at,
        delta,
        logprobs: [],
      });
    }
    events.push({
      type: 'response.output_text.done',
      sequence_number: next(),
      ...at,
      text,
      logprobs: [],
    });
    events.push({
      type: 'response.content_part.done',
      sequence_number: next(),
      ...at,
      part: { type: 'output_text', annotations: [], logprobs: [], text },
    });
    itemDone(item);
  }
  for (const item of items.toolCalls) {
    const at = { item_id: item.id ?? '', output_index: outputIndex };
    if (item.type === 'shell_call') {
      // the commands stream one by one into `action.commands`, as the SDK's accumulator reads them
      itemAdded({ ...item, status: 'in_progress', action: { ...item.action, commands: [] } });
      item.action.commands.forEach((command, commandIndex) => {
        const on = { command_index: commandIndex, output_index: outputIndex };
        events.push({
          type: 'response.shell_call_command.added',
          sequence_number: next(),
          ...on,
          command: '',
        });
        for (const delta of splitIntoChunks(command, reply.chunkSize)) {
          events.push({
            type: 'response.shell_call_command.delta',
            sequence_number: next(),
            ...on,
            delta,
          });
        }
        events.push({
          type: 'response.shell_call_command.done',
          sequence_number: next(),
          ...on,
          command,
        });
      });
      itemDone(item);
      continue;
    }
    if (item.type !== 'function_call' && item.type !== 'custom_tool_call') {
      // local_shell_call, apply_patch_call, computer_call: no events of their own
      itemAdded({ ...item, status: 'in_progress' });
      itemDone(item);
      continue;
    }
    if (item.type === 'custom_tool_call') {
      // a custom tool's free-form input streams as `custom_tool_call_input` deltas
      itemAdded({ ...item, input: '' });
      for (const delta of splitIntoChunks(item.input, reply.chunkSize)) {
        events.push({
          type: 'response.custom_tool_call_input.delta',
          sequence_number: next(),
          ...at,
          delta,
        });
      }
      events.push({
        type: 'response.custom_tool_call_input.done',
        sequence_number: next(),
        ...at,
        input: item.input,
      });
      itemDone(item);
      continue;
    }
    itemAdded({ ...item, status: 'in_progress', arguments: '' });
    for (const delta of splitIntoChunks(item.arguments, reply.chunkSize)) {
      events.push({
        type: 'response.function_call_arguments.delta',
        sequence_number: next(),
        ...at,
        delta,
      });
    }
    events.push({
      type: 'response.function_call_arguments.done',
      sequence_number: next(),
      ...at,
      arguments: item.arguments,
    });
    itemDone(item);
  }
  events.push({
    type: isIncomplete(reply) ? 'response.incomplete' : 'response.completed',
    sequence_number: next(),
    response: buildResponse(reply, request, 'final'),
  });
  return events;
}
