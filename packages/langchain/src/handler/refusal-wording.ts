import {
  defaultRefusal,
  type PolicyViolation,
  PolicyViolationError,
  type ToolCallReview,
} from '@tracewarden/core';
import { toolNodeErrorText } from '../messages/tool-output.js';

/*
 * The words a model reads for a call the handler refuses. A callback cannot answer a call: the
 * handler stops the refused call's tool run with a `PolicyViolationError`, and an agent's tool
 * node answers the model with its own error text (`PolicyViolationError: <refusal>\n Please fix
 * your mistakes.`). Core records the refusal when the model proposes the call, before the tool
 * runs, so the handler words it then as the tool node will, when the call's tool will run in a
 * graph node with the handler attached; the tool run then throws the refusal inside it.
 */

/** The tool node's wording of a refusal: the text the model reads for `refusal`. */
export function toolNodeRefusal(refusal: string, violations: readonly PolicyViolation[]): string {
  return toolNodeErrorText(new PolicyViolationError({ violations, message: refusal }));
}

/** `PolicyViolationError: ` and `\n Please fix your mistakes.` around a refusal, found once. */
let wrapping: { before: string; after: string } | undefined;

function toolNodeWrapping(): { before: string; after: string } {
  if (wrapping !== undefined) return wrapping;
  const marker = '\u0000';
  const [before = '', after = ''] = toolNodeRefusal(marker, []).split(marker);
  wrapping = { before, after };
  return wrapping;
}

/**
 * The error that stops a refused call's tool run: its message is the refusal the model reads.
 * Inside a graph node, a refusal already worded as the tool node words it is thrown unwrapped,
 * so the tool node's answer is the recorded text, word for word.
 * @param refusal - the refusal as recorded
 * @param inGraphNode - whether the tool run is inside a LangGraph node (an agent's tool node)
 */
export function refusalError(refusal: string, inGraphNode: boolean): PolicyViolationError {
  if (inGraphNode) {
    const { before, after } = toolNodeWrapping();
    if (
      refusal.length >= before.length + after.length &&
      refusal.startsWith(before) &&
      refusal.endsWith(after)
    )
      return new PolicyViolationError({
        violations: [],
        message: refusal.slice(before.length, refusal.length - after.length),
      });
  }
  return new PolicyViolationError({ violations: [], message: refusal });
}

/**
 * The handler's `refusalMessage` for core's recorder: the user's (or core's default) text,
 * worded as an agent's tool node will answer it while `toolNode()` says the refused call's tool
 * run will be stopped inside one.
 * @param given - the user's `refusalMessage`, if any
 * @param toolNode - whether refusals decided now are read through a tool node
 */
export function refusalWording(
  given: ((review: ToolCallReview) => string) | undefined,
  toolNode: () => boolean,
): (review: ToolCallReview) => string {
  const words = given ?? defaultRefusal;
  return (review) => {
    const refusal = words(review);
    return toolNode() ? toolNodeRefusal(refusal, review.violations) : refusal;
  };
}

/** Whether a run's metadata places it inside a LangGraph node. */
export function inGraphNode(metadata: Readonly<Record<string, unknown>> | undefined): boolean {
  return typeof metadata?.langgraph_node === 'string';
}
