// Decision 002's order rule for tool outputs without a call id, shared by parseTrace and the recorder.

/**
 * The tool calls of one message, in order, with a cursor past those known to be answered: the
 * unit of decision 002's order rule, kept by `parseTrace` and by the recorder's tracer state.
 * @internal
 */
export interface CallTurn {
  /** The call ids, in the message's order. */
  calls: string[];
  /** Index of the first call that may be unanswered (those before it are answered). */
  next: number;
}

/**
 * Decision 002's order rule over a stack of turns (oldest first): the first unanswered call of
 * the latest turn that has one, so parallel calls are answered in their order and a later
 * message's calls before an earlier one's. Answered calls are skipped, and answered turns popped,
 * lazily: amortised O(1) per output.
 * @param turns - the turns, most recent last (changed in place)
 * @param isAnswered - whether a call already has its output
 * @returns the call id, or `undefined` when every call is answered
 * @internal
 */
export function firstUnansweredCall(
  turns: CallTurn[],
  isAnswered: (callId: string) => boolean,
): string | undefined {
  while (turns.length > 0) {
    const turn = turns[turns.length - 1] as CallTurn;
    while (turn.next < turn.calls.length && isAnswered(turn.calls[turn.next] as string))
      turn.next++;
    if (turn.next < turn.calls.length) return turn.calls[turn.next];
    turns.pop();
  }
  return undefined;
}
