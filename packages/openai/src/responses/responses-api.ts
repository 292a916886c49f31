import {
  createStreamGate,
  type ModelCallDelta,
  type ModelCallHandle,
  type ModelCallOutcome,
  type ModelToolCallDelta,
  type StreamPartKind,
} from '@tracewarden/core';
import type { Response } from 'openai/resources/responses/responses';
import { jsonStringPiece } from '../stream/json-string-piece.js';
import { streamEndedEarly } from '../stream/stream-ended-early.js';
import { DeliverThenStop, HOLD, type StreamObserver } from '../stream/tap-stream.js';
import type { ApiAdapter, WrapContext } from '../wrap/api-adapter.js';
import { linkRecorded } from '../wrap/link-recorded.js';
import {
  isResponsesToolCallItem as isToolCallItem,
  responsesInputToNeutral,
  responsesResponse,
  responsesToolCall,
  responsesToolNames,
  responsesUsage,
} from './responses-messages.js';

type Item = Record<string, unknown>;
type StreamEvent = { type: string; [key: string]: unknown };

/** The request's parameters without its input and instructions (recorded as blocks). */
function requestParameters(body: Record<string, unknown>): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const key in body)
    if (key !== 'input' && key !== 'instructions' && Object.hasOwn(body, key))
      rest[key] = body[key];
  return rest;
}

/**
 * Applies a refuse-mode outcome to a response: refused tool calls (function, custom and the
 * built-in calls the caller runs) out of `output`, the refusal appended to the assistant text
 * (a new message item when there is none).
 */
function applyRefusal(response: Response, outcome: ModelCallOutcome): void {
  if (outcome.refusalText === undefined) return;
  const refused = new Set(
    outcome.toolCalls
      .filter((review) => review.refusal !== undefined)
      .map((review) => review.call.id),
  );
  const output = (response.output as unknown as Item[]).filter(
    (item) => !(isToolCallItem(item) && refused.has(String(item.call_id))),
  );
  let lastText: Item | undefined;
  for (const item of output) {
    if (item.type !== 'message') continue;
    for (const part of (item.content as Item[] | undefined) ?? [])
      if (part.type === 'output_text') lastText = part;
  }
  if (lastText !== undefined) lastText.text = `${String(lastText.text)}\n\n${outcome.refusalText}`;
  else {
    // before the calls kept, as a model's own text would be: re-sent as input next turn, the
    // text and those calls read as one assistant message, the response the trace recorded
    // (after them, they read as two and the refusal was recorded again)
    const firstCall = output.findIndex(isToolCallItem);
    output.splice(firstCall < 0 ? output.length : firstCall, 0, {
      id: `msg_tracewarden_${response.id}`,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: outcome.refusalText, annotations: [] }],
    });
  }
  (response as unknown as { output: Item[] }).output = output;
  const loose = response as unknown as { output_text?: unknown };
  if (typeof loose.output_text === 'string') {
    loose.output_text =
      loose.output_text === ''
        ? outcome.refusalText
        : `${loose.output_text}\n\n${outcome.refusalText}`;
  }
}

function responsesStreamObserver(
  controller: AbortController,
  handle: ModelCallHandle,
  context: WrapContext,
): StreamObserver<StreamEvent> {
  // Refused calls are filtered out of the held events at the end (their deltas have passed).
  const gate = createStreamGate(handle, {
    holdToolCalls: context.recorder.hasPolicy,
    dropToolCalls: false,
  });
  let final: Response | undefined;
  const checkPolicy = context.recorder.hasPolicy;
  /** Output index of each tool call, so all of a refused call's events can be dropped. */
  const callAt = new Map<number, string>();
  /** Output indexes of the custom tool calls whose input is still streaming. */
  const customAt = new Set<number>();
  /** Output indexes of the built-in calls (shell, apply_patch, ...) not done yet. */
  const builtInAt = new Set<number>();
  return {
    item(event) {
      let delta: ModelCallDelta | undefined;
      let kind: StreamPartKind = 'content';
      switch (event.type) {
        case 'response.created':
        case 'response.in_progress': {
          const response = event.response as Response;
          delta = { model: response.model, responseId: response.id };
          break;
        }
        case 'response.output_text.delta':
        case 'response.refusal.delta':
          delta = { text: String(event.delta) };
          break;
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta':
          delta = { reasoning: String(event.delta) };
          break;
        case 'response.output_item.added': {
          const item = event.item as Item;
          const call = responsesToolCall(item);
          if (call !== undefined) {
            callAt.set(Number(event.output_index), call.id);
            // with a policy, nothing of a call reaches the caller before the verdict: a consumer
            // may act on `function_call_arguments.done` already
            kind = checkPolicy ? 'tool-call-end' : 'tool-call';
            const start: ModelToolCallDelta = {
              index: Number(event.output_index),
              id: call.id,
              name: call.name,
            };
            // a custom tool's free-form input streams as the JSON text of `{ input }`, closed
            // by its `output_item.done`: a stream cut short records the call as partial
            if (item.type === 'custom_tool_call') {
              customAt.add(start.index);
              start.arguments = `{"input":"${jsonStringPiece(String(item.input ?? ''))}`;
            } else if (item.type !== 'function_call') {
              // a built-in call's action is whole in its `output_item.done` (a shell call's
              // commands stream in `shell_call_command` events until then): the JSON opened
              // here is closed there, and a stream cut short records the call as partial
              builtInAt.add(start.index);
              start.arguments = '{';
            }
            delta = { toolCalls: [start] };
          }
          break;
        }
        case 'response.function_call_arguments.delta':
          kind = 'tool-call';
          delta = {
            toolCalls: [{ index: Number(event.output_index), arguments: String(event.delta) }],
          };
          break;
        case 'response.custom_tool_call_input.delta':
          kind = 'tool-call';
          delta = {
            toolCalls: [
              {
                index: Number(event.output_index),
                arguments: jsonStringPiece(String(event.delta)),
              },
            ],
          };
          break;
        case 'response.shell_call_command.added':
        case 'response.shell_call_command.delta':
        case 'response.shell_call_command.done':
          // a piece of a shell call's action (a hosted shell's call is content)
          if (callAt.has(Number(event.output_index))) kind = 'tool-call';
          break;
        case 'response.output_item.done': {
          const item = event.item as Item | undefined;
          const call = item === undefined ? undefined : responsesToolCall(item);
          if (call !== undefined) kind = 'tool-call-end';
          const index = Number(event.output_index);
          if (customAt.delete(index)) delta = { toolCalls: [{ index, arguments: '"}' }] };
          else if (builtInAt.delete(index) && call !== undefined)
            delta = {
              toolCalls: [{ index, arguments: JSON.stringify(call.arguments).slice(1) }],
            };
          break;
        }
        case 'response.completed':
        case 'response.incomplete':
        case 'response.failed': {
          final = event.response as Response;
          kind = 'finish';
          delta = { usage: responsesUsage(final.usage) };
          break;
        }
        default:
          break;
      }
      switch (gate.push(delta, kind)) {
        case 'hold':
          return HOLD;
        case 'stop':
          throw gate.stopError;
        case 'deliver-then-stop':
          return new DeliverThenStop(event, gate.stopError);
        default:
          return event;
      }
    },
    end(held) {
      if (final === undefined && !controller.signal.aborted && !handle.stopped) {
        // no response.completed / incomplete / failed: the body ended early (see the chat one)
        gate.error(streamEndedEarly('response.completed event'));
        return [];
      }
      const response = final === undefined ? undefined : responsesResponse(final, null);
      if (response !== undefined && !context.recordRaw) delete response.raw;
      const end = gate.end(controller.signal.aborted, response);
      if (end.kind === 'failed') throw end.error;
      if (end.kind === 'cancelled') return [];
      const outcome = end.outcome;
      linkRecorded(handle.tracer, final, outcome);
      if (outcome.refused && final !== undefined) {
        // Refuse mode: the held events of refused calls are dropped and the final snapshot fixed.
        const refused = new Set(
          outcome.toolCalls
            .filter((review) => review.refusal !== undefined)
            .map((review) => review.call.id),
        );
        applyRefusal(final, outcome);
        return held.filter((event) => {
          const item = event.item as Item | undefined;
          if (isToolCallItem(item)) return !refused.has(String(item?.call_id));
          const callId =
            typeof event.output_index === 'number' ? callAt.get(event.output_index) : undefined;
          return callId === undefined || !refused.has(callId);
        });
      }
      return held;
    },
    error(error) {
      return gate.error(error);
    },
    cancel() {
      gate.cancel();
    },
  };
}

/** The Responses API (`client.responses.create`). @internal */
export const responsesApi: ApiAdapter = {
  api: 'responses',

  start(body, stream, signal) {
    return {
      provider: 'openai',
      api: 'responses',
      model: String(body.model ?? ''),
      messages: responsesInputToNeutral(body.input, body.instructions),
      tools: responsesToolNames(body.tools),
      stream,
      raw: requestParameters(body),
      signal,
    };
  },

  prepare(body) {
    return { body, injectedUsage: false };
  },

  finish(data, requestId, handle, context) {
    const response = data as Response;
    const neutral = responsesResponse(response, requestId);
    if (!context.recordRaw) delete neutral.raw;
    const outcome = handle.finish(neutral);
    if (outcome.refused) applyRefusal(response, outcome);
    return outcome;
  },

  observeStream(controller, handle, _prepared, context) {
    return responsesStreamObserver(controller, handle, context) as StreamObserver<unknown>;
  },
};
