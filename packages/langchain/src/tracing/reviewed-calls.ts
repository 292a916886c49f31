import { canonicalJson, type ModelCallOutcome, refusalFor } from '@tracewarden/core';
import { toolArguments } from './hand-over-verdicts.js';

/** Most reviewed calls remembered for runs without a call id (oldest dropped first). */
const maxReviewed = 1_000;

/**
 * With a policy: the calls core's recorder reviewed in one handler's model calls, by call id,
 * with the tool name, canonical arguments and whether the call was refused (and left in the
 * answer, refuse mode), so a tool run can be matched to the call it answers on cores that start
 * a tool run without its call id (1.0.0). Bounded: past {@link maxReviewed} the oldest go.
 * @internal
 */
export class ReviewedCalls {
  readonly #calls = new Map<
    string,
    { callId: string; name: string; args: string; refused: boolean }
  >();
  /** Calls remembered without an id (`""`), each under a key of its own. */
  #absentIds = 0;

  /** Remembers every call a model call's outcome reviewed. */
  remember(outcome: ModelCallOutcome): void {
    for (const review of outcome.toolCalls) {
      const args = canonicalJson(review.call.arguments);
      if (args === undefined) continue;
      const callId = review.call.id;
      // calls without an id are told apart by tool and arguments when their runs start
      const key = callId === '' ? `\u0000${++this.#absentIds}` : callId;
      this.#calls.delete(key);
      this.#calls.set(key, {
        callId,
        name: review.call.name,
        args,
        refused: review.refusal !== undefined,
      });
      if (this.#calls.size > maxReviewed) {
        const oldest = this.#calls.keys().next();
        if (oldest.done !== true) this.#calls.delete(oldest.value);
      }
    }
  }

  /**
   * The verdict on the call a tool run is for: its refusal, by its call id, or, when LangChain
   * gives none, by the tool's name and arguments among the remembered calls (`reviewed`: the
   * run answers one of them; `callId`: the call's id). The verdict is taken.
   */
  claim(
    toolCallId: string | undefined,
    name: string | undefined,
    input: string,
  ): { reviewed: boolean; refusal: string | undefined; callId?: string | undefined } {
    const args = toolArguments(input);
    if (toolCallId !== undefined) {
      this.#calls.delete(toolCallId);
      // whether the trace holds the call is known once its trace is resolved
      return {
        reviewed: false,
        refusal: refusalFor(toolCallId, name ?? '', args),
        callId: toolCallId,
      };
    }
    if (this.#calls.size === 0) return { reviewed: false, refusal: undefined };
    const canonical = canonicalJson(args);
    for (const [key, call] of this.#calls) {
      if (call.name !== name || call.args !== canonical) continue;
      this.#calls.delete(key);
      return {
        reviewed: true,
        refusal: call.refused ? refusalFor(call.callId, call.name, args) : undefined,
        callId: call.callId,
      };
    }
    return { reviewed: false, refusal: undefined };
  }
}
