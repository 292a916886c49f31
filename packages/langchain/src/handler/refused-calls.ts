import {
  type Block,
  hasVerdict,
  type ModelCallOutcome,
  refusalFor,
  type Tracer,
} from '@tracewarden/core';
import { type LooseMessage, messageType } from '../messages/messages-to-neutral.js';
import { toolOutcomeOf } from '../messages/tool-output.js';

/** A call the policy refused in `refuse` mode, left in the answer for its tool run to refuse. */
interface RefusedCall {
  readonly tracer: Tracer;
  /** The model's call id (what the call's `ToolMessage` names). */
  readonly callId: string;
  /** The id its TOOL_CALL was recorded under (another when the model used the id again). */
  readonly recordedCallId: string;
  readonly callBlockId: string;
  readonly name: string;
  readonly arguments: unknown;
  /** The refusal recorded as its TOOL_RESULT. */
  readonly refusal: string;
  /** Whether the handler stopped its tool run. */
  stopped: boolean;
}

/** Most refused calls remembered until their `ToolMessage` comes back (oldest dropped first). */
const maxRefused = 1_000;

let ranWarned = false;

/**
 * Says once per process that a call the policy refused ran: the handler refuses a call in its
 * tool run, and that run did not have the handler attached.
 */
function warnRan(name: string): void {
  if (ranWarned) return;
  ranWarned = true;
  process.emitWarning(
    `tracewarden: the policy refused a call of the tool ${name} ('refuse' mode), but the tool ran: TracewardenCallbackHandler refuses a call when its tool run starts, and this tool ran without the handler attached (a handler given to a model's constructor is not inherited by the tools an agent runs). Attach the handler to the whole run (agent.invoke(input, { callbacks: [handler] })), wrap the tools with guardTools, or use tracewardenAgentMiddleware with createAgent. The trace records what the tool returned as a second TOOL_RESULT of the call (metadata.refusal_not_enforced).`,
    { code: 'TRACEWARDEN_REFUSED_CALL_RAN' },
  );
}

/**
 * Whether another `ToolMessage` of `messages` answers `call`'s id with its refusal: `message`,
 * with the same id, is then the answer of another call the model gave that id.
 */
function otherReadsRefusal(
  messages: readonly LooseMessage[],
  message: LooseMessage,
  call: RefusedCall,
): boolean {
  if (toolOutcomeOf(message, call.callId).output === call.refusal) return false;
  return messages.some(
    (other) =>
      other !== message &&
      other.tool_call_id === call.callId &&
      messageType(other) === 'tool' &&
      toolOutcomeOf(other, call.callId).output === call.refusal,
  );
}

/**
 * A handler's refused calls in `refuse` mode, until the next request re-sends their
 * `ToolMessage`: what the model read for each is checked against the refusal recorded when the
 * model proposed it. A refusal recorded in other words than the model read, or a refused call
 * whose tool ran anyway (a tool run without the handler attached), gets a second TOOL_RESULT
 * with what the model read (`metadata.as_read`), so the trace never keeps "It was not executed"
 * as the only record of a call that ran.
 * @internal
 */
export class RefusedCalls {
  readonly #calls: RefusedCall[] = [];

  /** Remembers the calls a model call refused at their tool, with their recorded refusal. */
  note(tracer: Tracer, outcome: ModelCallOutcome): void {
    const messageBlockId = outcome.messageBlockId;
    if (messageBlockId === undefined) return;
    if (!outcome.toolCalls.some((review) => review.refusedAtTool === true)) return;
    // this answer's blocks are the last ones: its MESSAGE, then its calls and refusals
    const blocks = tracer.blocks();
    const calls: Block[] = [];
    const refusals = new Map<string, unknown>();
    for (let i = blocks.length - 1; i >= 0; i--) {
      const block = blocks[i] as Block;
      if (block.id === messageBlockId) break;
      if (block.sub_type === 'TOOL_CALL' && block.parent_block_id === messageBlockId)
        calls.unshift(block);
      else if (block.sub_type === 'TOOL_RESULT' && block.metadata.refused === true)
        refusals.set(block.parent_block_id ?? '', block.payload.output);
    }
    outcome.toolCalls.forEach((review, index) => {
      const call = calls[index];
      if (review.refusedAtTool !== true || review.call.id === '' || call === undefined) return;
      if (call.sub_type !== 'TOOL_CALL' || call.payload.name !== review.call.name) return;
      const refusal = refusals.get(call.id);
      if (typeof refusal !== 'string') return;
      this.#calls.push({
        tracer,
        callId: review.call.id,
        recordedCallId: call.payload.call_id,
        callBlockId: call.id,
        name: review.call.name,
        arguments: review.call.arguments,
        refusal,
        stopped: false,
      });
      if (this.#calls.length > maxRefused) this.#calls.shift();
    });
  }

  /** Notes that the handler stopped the tool run of the refused call `callId` of the tool `name`. */
  stopped(callId: string | undefined, name: string | undefined): void {
    if (callId === undefined || this.#calls.length === 0) return;
    const call = this.#calls.find(
      (each) =>
        !each.stopped && each.callId === callId && (name === undefined || each.name === name),
    );
    if (call !== undefined) call.stopped = true;
  }

  /**
   * Checks the `ToolMessage`s a request re-sends for refused calls of `tracer` against their
   * recorded refusal, and records what the model read when it differs. A refusal no one
   * enforced (neither this handler nor a guarded tool took the verdict) ran: its output is
   * recorded with its status, and a process warning says why (once).
   */
  reconcile(
    tracer: Tracer,
    messages: readonly LooseMessage[],
    report: (error: unknown) => void,
  ): void {
    if (this.#calls.length === 0) return;
    for (const message of messages) {
      const callId = message.tool_call_id;
      if (typeof callId !== 'string' || callId === '' || messageType(message) !== 'tool') continue;
      const index = this.#calls.findIndex(
        (call) => call.tracer === tracer && call.callId === callId,
      );
      if (index === -1) continue;
      // a model that gave two calls one id (the refused one and an allowed one): the message
      // that reads the refusal is the refused call's, not its twin's that ran
      if (otherReadsRefusal(messages, message, this.#calls[index] as RefusedCall)) continue;
      const [call] = this.#calls.splice(index, 1) as [RefusedCall];
      try {
        this.#recordRead(call, message);
      } catch (error) {
        report(error);
      }
      if (this.#calls.length === 0) return;
    }
  }

  #recordRead(call: RefusedCall, message: LooseMessage): void {
    const read = toolOutcomeOf(message, call.callId);
    if (read.output === call.refusal) return;
    // the verdict still waits for a tool run: no one refused the call, its tool ran
    const enforced = call.stopped || !hasVerdict(call.callId, call.name, call.tracer);
    const metadata: Record<string, unknown> = enforced
      ? { status: 'failure', refused: true, policy: 'block', tool_name: call.name, as_read: true }
      : { status: read.status, tool_name: call.name, refusal_not_enforced: true, as_read: true };
    call.tracer.logObserve({
      parent_block_id: call.callBlockId,
      payload: { call_id: call.recordedCallId, output: read.output },
      metadata,
      ...(read.extra === undefined ? {} : { extra: read.extra }),
    });
    if (enforced) return;
    // the verdict no tool run took goes, or a later call with this id (servers that number
    // calls per answer) would be taken for it
    refusalFor(call.callId, call.name, call.arguments, call.tracer);
    warnRan(call.name);
  }
}
