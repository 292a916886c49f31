import { type BaseMessage, ToolMessage } from '@langchain/core/messages';
import {
  type AdapterOptions,
  createAdapterRuntime,
  createTracer,
  currentTracer,
  type ModelCallHandle,
  optionChecks,
  PolicyViolationError,
  recordedRefusal,
  recordToolResult,
  refusalFor,
  scopedResultMetadata,
  ToolCallScope,
  type Tracer,
  TracewardenError,
  withTrace,
} from '@tracewarden/core';
import { messageToResponse } from '../messages/message-to-response.js';
import {
  type LooseMessage,
  messagesToNeutral,
  messageType,
} from '../messages/messages-to-neutral.js';
import { toolNodeErrorText } from '../messages/tool-output.js';
import { admitUnlinkedToolCall } from '../tracing/admit-unlinked-tool-call.js';
import type { UnlinkedCallPolicy } from '../tracing/check-unlinked-tool-call.js';
import {
  answeredAbsentCall,
  noteCallAnswered,
  runWithOwnTracers,
  tracerOfAnswers,
  tracerOfCall,
  tracerOfCallsIn,
  waitingCallOf,
} from '../tracing/conversation-links.js';
import { finishModelCall } from '../tracing/finish-model-call.js';
import { KeptTracers } from '../tracing/kept-tracers.js';
import { recordingErrorReporter } from '../tracing/recording-error-reporter.js';
import { asAttempt, ToolAttempts } from '../tracing/tool-attempts.js';
import {
  failedToolResultOf,
  type ToolResultInput,
  type ToolRun,
  toolResultOf,
} from '../tracing/tool-result-of.js';
import { captureGenerationInfo } from './capture-generation-info.js';

/**
 * Options of {@link tracewardenAgentMiddleware}: the options every tracewarden adapter shares
 * (`tracer`, `guards`, `timeoutSeconds`, `policy`, `onPolicyViolation`, `refusalMessage`,
 * `pricing`, `recordRaw`, `onRecordingError`), with the same names as `wrapOpenAI`.
 * `onPolicyViolation: 'throw'` (default) rejects the agent run with `PolicyViolationError`
 * before any tool runs; `'refuse'` answers a blocked call with a refusal `ToolMessage` the
 * model reads, and the agent goes on.
 * @example
 * ```ts
 * const options: TracewardenAgentMiddlewareOptions = { tracer, policy, onPolicyViolation: 'refuse' };
 * createAgent({ model, tools, middleware: [tracewardenAgentMiddleware(options)] });
 * ```
 */
export interface TracewardenAgentMiddlewareOptions extends AdapterOptions {
  /**
   * What the agent gets when a tool throws. `'message'`: the failure is recorded and the model
   * reads the error `ToolMessage` (`status: 'error'`) that `createAgent`'s tool node makes when
   * no middleware wraps tool calls, so adding this middleware does not change what the agent
   * does (LangChain treats any error that leaves a `wrapToolCall` middleware as fatal to the run).
   * `'throw'`: the failure is recorded and the error goes on to the middleware outside this one
   * (a retry middleware placed before this one sees it) and, unhandled, rejects the run.
   * Interrupts, aborts of the run, tool-input errors and tracewarden's own typed errors (a
   * guarded tool told to throw, `onGuardError: 'throw'`) always go on to LangChain.
   * @default 'message'
   */
  onToolError?: 'message' | 'throw' | undefined;
  /**
   * Makes the trace of an agent run that continues no recorded conversation (when no `tracer`
   * is given and no `withTrace` encloses the run).
   * @default `createTracer()` (the last 100 are in the middleware's `tracers`)
   */
  tracerFactory?: (() => Tracer) | undefined;
}

/**
 * A `createAgent` model request, as the middleware reads it: the parts every `langchain@1` has
 * (its `ModelRequest` fits).
 * @example
 * ```ts
 * const request: AgentModelRequest = { messages: [new HumanMessage('Hi')], systemPrompt: 'Be brief.' };
 * ```
 */
export interface AgentModelRequest {
  /** The agent's chat model. */
  model?: unknown;
  /** The conversation sent to the model (without the system message). */
  messages?: readonly BaseMessage[];
  /** The system message, when the agent has one. */
  systemMessage?: BaseMessage | undefined;
  /** The system prompt text (older `langchain@1` releases). */
  systemPrompt?: unknown;
  /** The tools bound to the model. */
  tools?: readonly unknown[];
  /** The run's runtime: its abort signal. */
  runtime?: { signal?: AbortSignal | undefined } | undefined;
}

/**
 * A `createAgent` tool-call request, as the middleware reads it (its `ToolCallRequest` fits).
 * @example
 * ```ts
 * const request: AgentToolCallRequest = { toolCall: { id: 'call_1', name: 'weather', args: { city: 'Paris' } } };
 * ```
 */
export interface AgentToolCallRequest {
  /** The model's tool call. */
  toolCall: { id?: string | undefined; name: string; args: Record<string, unknown> };
  /** The agent's state: its messages find the trace of the run the call belongs to. */
  state?: { messages?: readonly BaseMessage[] | undefined } | undefined;
  /** The run's runtime: its abort signal. */
  runtime?: { signal?: AbortSignal | undefined } | undefined;
}

/**
 * The middleware, with the traces it made. Typed by shape rather than as `langchain`'s
 * `AgentMiddleware`, so these declarations need only `@langchain/core` (`langchain` is an
 * optional peer); it is assignable to `AgentMiddleware` and goes into `createAgent({ middleware })`
 * as is.
 * @example
 * ```ts
 * const middleware: TracewardenAgentMiddleware = tracewardenAgentMiddleware();
 * await createAgent({ model, tools, middleware: [middleware] }).invoke({ messages });
 * const [first] = middleware.tracers;
 * if (first !== undefined) console.log(renderTree(first.stitched()));
 * ```
 */
export interface TracewardenAgentMiddleware {
  /** The middleware's name in the agent (`'TracewardenMiddleware'`). */
  readonly name: string;
  /**
   * Guards, records and reviews one model call of the agent (see {@link tracewardenAgentMiddleware}).
   * @param request - the agent's model request
   * @param handler - calls the model (and the middleware inside this one)
   * @returns the model's answer
   */
  wrapModelCall<Answer>(
    request: AgentModelRequest,
    handler: (request: never) => Answer | PromiseLike<Answer>,
  ): Promise<Answer>;
  /**
   * Records one tool call's result, or answers a refused call with its refusal `ToolMessage`
   * (and, with `onToolError: 'message'`, a failed call with its error `ToolMessage`).
   * @param request - the agent's tool-call request
   * @param handler - runs the tool (and the middleware inside this one)
   * @returns the tool's result, the refusal or the error message
   */
  wrapToolCall<Result>(
    request: AgentToolCallRequest,
    handler: (request: never) => Result | PromiseLike<Result>,
  ): Promise<Result | ToolMessage>;
  /** The traces this middleware recorded into, oldest first (at most the last 100). */
  readonly tracers: readonly Tracer[];
}

/** The scope id of a tool call that has none (`""`, decision 030): a scope needs one. */
const absentCallId = 'call_without_id';

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Provider, model and class of the agent's chat model (`getLsParams`, as LangChain traces it). */
function modelOf(given: unknown): { provider: string; model: string; className: string } {
  // a request without a model (the type allows it): the call is recorded as a chat model's
  const model = (typeof given === 'object' && given !== null ? given : {}) as {
    constructor?: { name?: unknown };
    getLsParams?: (options: object) => Record<string, unknown>;
    model?: unknown;
    modelName?: unknown;
  };
  const className = (given === model && stringOf(model.constructor?.name)) || 'ChatModel';
  let params: Record<string, unknown> = {};
  try {
    params = model.getLsParams?.({}) ?? {};
  } catch {
    // a model whose tracing parameters need options we do not have: use what else is known
  }
  return {
    provider: stringOf(params.ls_provider) ?? 'langchain',
    model:
      stringOf(params.ls_model_name) ??
      stringOf(model.model) ??
      stringOf(model.modelName) ??
      className,
    className,
  };
}

function toolNames(tools: readonly unknown[] | undefined): { name: string }[] | undefined {
  if (tools === undefined || tools.length === 0) return undefined;
  const names: { name: string }[] = [];
  for (const tool of tools) {
    const name = stringOf((tool as { name?: unknown } | null)?.name);
    if (name !== undefined) names.push({ name });
  }
  return names;
}

/** Rejects with the handle's stop reason when a guard stops the call (a timeout). */
function stopped(handle: ModelCallHandle): Promise<never> {
  return new Promise((_, reject) => {
    const signal = handle.signal;
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * Whether a tool call's error is the tool's own failure, which `createAgent` hands to the model
 * when no middleware wraps tool calls: not a LangGraph interrupt or bubble-up (control flow), not
 * a tool-input error (LangChain's `ToolInvocationError`, which its tool node answers itself), not
 * one of tracewarden's typed errors (a guard or policy told to throw), and not the run being
 * aborted. Read by shape: `langchain` is an optional peer, never loaded here.
 */
function isToolFailure(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted === true) return false;
  // tracewarden's own typed errors (a guarded tool's guard with onGuardError: 'throw', a policy
  // block in throw mode) mean to stop the run: they are not the tool's failure
  if (TracewardenError.isInstance(error)) return false;
  if (typeof error !== 'object' || error === null) return true;
  const fields = error as { is_bubble_up?: unknown; name?: unknown };
  return (
    fields.is_bubble_up !== true &&
    fields.name !== 'GraphInterrupt' &&
    fields.name !== 'NodeInterrupt' &&
    !isToolInvocationError(error)
  );
}

/** LangChain's `ToolInvocationError` (a tool input its schema refused), read by its brand. */
function isToolInvocationError(error: unknown): error is { message: unknown } {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { '~brand'?: unknown })['~brand'] === 'ToolInvocationError'
  );
}

function isEmpty(content: unknown): boolean {
  return (
    content === undefined ||
    content === null ||
    content === '' ||
    (Array.isArray(content) && content.length === 0)
  );
}

/**
 * An agent middleware for `langchain@1`'s `createAgent` that traces and guards the agent's
 * model and tool calls:
 * - `wrapModelCall`: applies the model-call guards before the call (`BudgetExceededError`,
 *   `RateLimitedError`, ... reject the run; `timeoutSeconds` rejects a call that runs too long),
 *   records the messages new to the trace and the answer (THINK, TOOL_CALL blocks, usage, cost,
 *   latency), and checks the proposed tool calls against `policy` before any tool runs.
 * - `wrapToolCall`: records each tool's result under its TOOL_CALL; in `refuse` mode a call the
 *   policy blocked is answered with a refusal `ToolMessage` (`status: 'error'`) and never runs.
 *   A tool that throws is recorded as a failed TOOL_RESULT and, by default (`onToolError`), the
 *   model reads the error as it would without this middleware.
 *
 * One trace per agent run (a run that re-sends a recorded conversation continues its trace),
 * unless `tracer` is given or a `withTrace` encloses the run. Tools wrapped with `guardTools`
 * record their guard decisions into the same trace.
 *
 * @param options - tracer, guards, timeout, policy and its mode, pricing, tracer factory,
 *   what a tool's error becomes
 * @returns the middleware, for `createAgent({ middleware: [...] })`
 * @throws ConfigurationError (`INVALID_OPTIONS`) for an unknown option or a wrong value
 * @example
 * ```ts
 * const agent = createAgent({
 *   model: new ChatOpenAI({ model: 'gpt-4o-mini' }),
 *   tools: [getInbox, sendEmail],
 *   middleware: [tracewardenAgentMiddleware({ tracer, policy, onPolicyViolation: 'refuse' })],
 * });
 * await agent.invoke({ messages: [{ role: 'user', content: 'Summarise my inbox' }] });
 * ```
 */
export function tracewardenAgentMiddleware(
  options?: TracewardenAgentMiddlewareOptions,
): TracewardenAgentMiddleware {
  const runtime = createAdapterRuntime(options, {
    entryPoint: 'tracewardenAgentMiddleware',
    extraOptions: {
      tracerFactory: optionChecks.function,
      onToolError: optionChecks.oneOf('message', 'throw'),
    },
  });
  const toolErrorsAsMessages = options?.onToolError !== 'throw';
  const refuse = runtime.recorder.hasPolicy && runtime.recorder.onPolicyViolation === 'refuse';
  const unlinkedPolicy: UnlinkedCallPolicy | undefined =
    options?.policy === undefined
      ? undefined
      : {
          policy: options.policy,
          mode: runtime.recorder.onPolicyViolation,
          refusalMessage: options.refusalMessage,
        };
  const kept = new KeptTracers();
  /** Every trace this middleware recorded into: the only ones its look-ups may continue. */
  const own = new WeakSet<Tracer>();
  /**
   * The trace of an agent run, by its first message that is not a system prompt (the same object
   * in every step): a system message is often one constant every run starts with, which would
   * put every user's run into the first one's trace.
   */
  const byFirstMessage = new WeakMap<object, Tracer>();
  const runKeyOf = (messages: readonly LooseMessage[]): LooseMessage | undefined => {
    for (const message of messages) {
      const type = messageType(message);
      if (type !== 'system' && type !== 'developer') return message;
    }
    return messages[0];
  };
  const report = recordingErrorReporter(options?.onRecordingError, 'a tool call or result');
  /** Calls whose failure was passed on (`'throw'`): a retry middleware outside may run them again. */
  const attempts = new ToolAttempts();

  /**
   * The trace of the agent run these messages are the state of, by what is the run's own: an
   * answer of this run re-sent (by object), else the run's first message. Never by a call id:
   * providers that number calls per answer give every conversation `call_0`.
   */
  function tracerOfRun(messages: readonly LooseMessage[] | undefined): Tracer | undefined {
    if (messages === undefined) return undefined;
    const first = runKeyOf(messages);
    return (
      tracerOfAnswers(messages, own) ??
      (first === undefined ? undefined : byFirstMessage.get(first))
    );
  }

  function tracerOf(messages: readonly LooseMessage[]): Tracer {
    const first = runKeyOf(messages);
    const known =
      options?.tracer ??
      currentTracer() ??
      tracerOfRun(messages) ??
      // the last resort, for a history not re-sent as the same objects (a checkpointer's copy)
      tracerOfCallsIn(messages, own);
    const tracer = known ?? options?.tracerFactory?.() ?? createTracer();
    if (first !== undefined && !byFirstMessage.has(first)) byFirstMessage.set(first, tracer);
    own.add(tracer);
    return kept.remember(tracer);
  }

  async function wrapModelCall(
    request: AgentModelRequest,
    handler: (request: never) => Promise<unknown>,
  ): Promise<unknown> {
    const conversation = request.messages ?? [];
    // createAgent always has a system message; without a prompt its content is empty and the
    // model is sent none
    const system =
      request.systemMessage ??
      (stringOf(request.systemPrompt) === undefined
        ? undefined
        : { type: 'system', content: request.systemPrompt });
    const messages =
      system === undefined || isEmpty(system.content) ? conversation : [system, ...conversation];
    const tracer = tracerOf(conversation);
    // the tool runs of the last answer are over: a call id used again is a new call
    attempts.forget(tracer);
    const model = modelOf(request.model);
    const signal = request.runtime?.signal;
    const handle = runtime.recorder.start({
      provider: model.provider,
      api: model.className,
      model: model.model,
      messages: messagesToNeutral(messages),
      tools: toolNames(request.tools),
      stream: false,
      signal,
      tracer,
      keepRefusedCall: refuse ? () => true : undefined,
    });
    // a guard with a shared store (Redis) decides asynchronously: the model waits for it
    if (handle.admission !== undefined) await handle.admission;
    let answer: unknown;
    let generationInfo: Record<string, unknown> | undefined;
    try {
      // a streamed call (`messages` mode) returns a message without its finish reason: LangChain
      // keeps that in the generation's info, which only its callbacks see
      const call = captureGenerationInfo(() => handler(request as never));
      ({ answer, generationInfo } = await (runtime.hasTimeout
        ? Promise.race([call, stopped(handle)])
        : call));
    } catch (error) {
      throw handle.end(error, signal);
    }
    if (handle.stopped) throw handle.fail(handle.signal.reason);
    const message = answer as LooseMessage;
    const response = messageToResponse(message, generationInfo);
    response.metadata = { langchain: { source: 'agent_middleware' } };
    finishModelCall(handle, message, response, runtime.recordRaw, answer, 'middleware');
    return answer;
  }

  async function wrapToolCall(
    request: AgentToolCallRequest,
    handler: (request: never) => Promise<unknown>,
  ): Promise<unknown> {
    const call = request.toolCall;
    // `""` (Gemini-backed agents) or no id at all (LangChain's `ToolCall.id` is optional): the
    // result answers the trace's next unanswered call (decisions 002 and 030), never a TOOL_CALL
    // of its own
    const callId = call.id ?? '';
    const absentId = callId === '';
    const tracer =
      options?.tracer ??
      tracerOfRun(request.state?.messages) ??
      currentTracer() ??
      tracerOfCall(callId, call.name, call.args, true, own) ??
      tracerOf([]);
    // the verdict on this call, re-checked when its arguments changed since the review; a
    // blocked call run again (a retry middleware, the same call invoked twice) finds its verdict
    // taken by the first run, and is refused again as the trace recorded it
    const refusal =
      refusalFor(callId, call.name, call.args) ??
      recordedRefusal(tracer, callId, call.name, call.args);
    // the refusal is already recorded as the call's TOOL_RESULT; in 'throw' mode the run
    // rejects (arguments another middleware changed since the review, now blocked), as the
    // handler's does
    if (refusal !== undefined && unlinkedPolicy?.mode === 'throw')
      throw new PolicyViolationError({ violations: [], message: refusal });
    if (refusal !== undefined)
      return new ToolMessage({
        content: refusal,
        tool_call_id: callId,
        name: call.name,
        status: 'error',
      });
    const id = callId;
    if (!absentId && tracer.findToolCall(id) === undefined) {
      // a call no model call of this trace proposed (another middleware's, an edited one): with a
      // policy it is checked here, on the trace so far, before the tool runs
      const args = call.args ?? {};
      const { review, error: blocked } = admitUnlinkedToolCall(
        tracer,
        unlinkedPolicy,
        {
          callId: id,
          name: call.name,
          input: JSON.stringify(args),
          arguments: args,
          metadata: { langchain: { source: 'agent_middleware' } },
        },
        report,
      );
      if (blocked !== undefined) {
        if (review?.refusal === undefined) throw blocked;
        return new ToolMessage({
          content: review.refusal,
          tool_call_id: id,
          name: call.name,
          status: 'error',
        });
      }
    }
    // a call whose failure this middleware recorded and passed on, run again: a retry
    // middleware outside this one retried it (its result joins the failure's)
    const attempt = attempts.of(tracer, id);
    const started: ToolRun = { callId: id, toolName: call.name, startedAt: performance.now() };
    // `""`: the call of this tool with these arguments (parallel calls end in any order), else
    // the order rule; looked up when the result is recorded
    const resultRun = (): ToolRun | undefined => {
      if (!absentId) return started;
      const waiting = waitingCallOf(tracer, call.name, call.args ?? {})?.callId;
      // nothing when a guarded tool already recorded that call's result
      if (waiting === undefined && answeredAbsentCall(tracer, call.name, call.args ?? {}))
        return undefined;
      return { ...started, callId: waiting ?? '' };
    };
    let result: unknown;
    // guarded tools find this trace through the enclosing withTrace; a core guard() the tool's
    // own function calls takes the model's call from the scope (no TOOL_CALL of its own) and its
    // record joins the result recorded below. A call without an id gets a scope too (its id
    // only names the guard's held record; the result is linked as above), as executeToolCalls
    // gives one
    const scope = new ToolCallScope(absentId ? absentCallId : id, tracer);
    try {
      // a guarded tool given no tracer looks only among this middleware's traces
      result = await withTrace(tracer, () =>
        scope.run(() => runWithOwnTracers(own, () => handler(request as never))),
      );
    } catch (error) {
      if (!toolErrorsAsMessages || !isToolFailure(error, request.runtime?.signal)) {
        const run = resultRun();
        // a tool-input error goes on to the tool node, which answers the model its message
        const read = isToolInvocationError(error) ? String(error.message) : undefined;
        if (run !== undefined)
          record(tracer, asAttempt(failedToolResultOf(error, run, read), attempt), scope);
        // the error goes on: a retry middleware outside may run the call again
        attempts.ended(tracer, id, attempt, true);
        throw error;
      }
      attempts.ended(tracer, id, attempt, false);
      // what createAgent's tool node answers a failed tool with when no middleware wraps it,
      // recorded as the model reads it
      const content = toolNodeErrorText(error);
      const run = resultRun();
      if (run !== undefined)
        record(tracer, asAttempt(failedToolResultOf(error, run, content), attempt), scope);
      return new ToolMessage({ content, tool_call_id: id, name: call.name, status: 'error' });
    }
    attempts.ended(tracer, id, attempt, false);
    const run = resultRun();
    if (run !== undefined) record(tracer, asAttempt(toolResultOf(result, run), attempt), scope);
    return result;
  }

  function record(tracer: Tracer, input: ToolResultInput, scope?: ToolCallScope): void {
    try {
      recordToolResult(
        tracer,
        scope === undefined
          ? input
          : { ...input, metadata: scopedResultMetadata(scope, input.metadata ?? {}) },
      );
      noteCallAnswered(tracer, input.callId);
    } catch (error) {
      report(error);
    }
  }

  // Built as createMiddleware() builds it (the brand is a global symbol), so this package does
  // not load `langchain` at runtime: it is an optional peer.
  const middleware = {
    [Symbol.for('AgentMiddleware')]: true,
    name: 'TracewardenMiddleware',
    wrapModelCall,
    wrapToolCall,
  };
  Object.defineProperty(middleware, 'tracers', { get: () => kept.list, enumerable: false });
  return middleware as unknown as TracewardenAgentMiddleware;
}
