import { flatCallArguments } from '../../model/parse-trace.js';
import { PolicyError } from '../policy-error.js';
import type { ToolCallVerdict } from '../policy-types.js';
import { isRecord } from './is-record.js';
import type { PolicySession } from './policy-session.js';

/** @internal Checks and normalises a proposed call to OpenAI's shape. */
function proposedCallRecord(call: unknown): Record<string, unknown> {
  if (!isRecord(call)) {
    throw new PolicyError({
      code: 'POLICY_INPUT',
      message: 'a proposed tool call must be an object like { function: { name, arguments } }',
    });
  }
  if (isRecord(call.function) && typeof call.function.name === 'string') return call;
  if (typeof call.name === 'string') {
    // `{ name, arguments }`, LangChain's `{ name, args }`, Anthropic's tool_use `{ name, input }`
    const { name, id } = call;
    return {
      ...(typeof id === 'string' ? { id } : {}),
      type: 'function',
      function: { name, arguments: flatCallArguments(call) ?? {} },
    };
  }
  throw new PolicyError({
    code: 'POLICY_INPUT',
    message:
      'a proposed tool call needs a function name; expected { function: { name, arguments } } or { name, arguments }',
  });
}

/**
 * Speculatively appends a proposed call to a session, collects the violations it causes (those
 * binding the call, and new keys of whole-trace rules), and rolls the session back.
 * @internal
 */
export function proposeToolCall(session: PolicySession, call: unknown): ToolCallVerdict {
  const record = proposedCallRecord(call);
  const fn = record.function as Record<string, unknown> | undefined;
  // the rules' variables that only the proposal can bind need not be read on the trace
  session.prime({ toolName: typeof fn?.name === 'string' ? fn.name : '' });
  const known = session.wholeTraceKeys();
  const mark = session.store.mark();
  try {
    const event = session.store.appendProposedCall(record);
    // every violation that binds the call counts, even one whose key a violation of the trace
    // already has (the call shares the index of the assistant message it is added to)
    const { errors: violations, truncated } = session.evaluateNew(event.position, known, true);
    // past the cap a blocking violation may be among those not enumerated: fail closed
    const allowed = !truncated && !violations.some((v) => v.action === 'block');
    return { allowed, violations, truncated };
  } finally {
    session.store.rollback(mark);
    session.truncate(mark.events);
  }
}
