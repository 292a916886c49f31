import { AsyncLocalStorage } from 'node:async_hooks';
import {
  configurationError,
  currentTracer,
  type GuardCallContext,
  type GuardOptions,
  guardTools as guardFunctions,
  type ToolCallPolicy,
  type Tracer,
} from '@tracewarden/core';
import type { ToolExecutionOptions, ToolSet } from 'ai';
import { toolCallRefusal } from './check-tool-call-on-conversation.js';
import { guardedMarker } from './guarded-marker.js';
import { modelErrorText } from './model-error-text.js';
import { tracerPolicy } from './tracer-policies.js';

/**
 * Options of {@link guardTools}: the options of core's `guard()` shared by every tool (retry,
 * timeout, budget, rate limit, circuit breaker, validators, hallucination checks, `sideEffect`),
 * and per-tool options under `tools` that replace shared ones key by key.
 */
export type GuardAiToolsOptions<Tools extends ToolSet> = Omit<GuardOptions, 'name'> & {
  /**
   * Per-tool options, by tool name, for tools with an `execute` (the others are never run by
   * the AI SDK, so there is nothing to guard). Callbacks get the tool's output type.
   */
  tools?:
    | {
        [Name in ExecutableToolName<Tools>]?: Omit<GuardOptions<ToolOutputOf<Tools[Name]>>, 'name'>;
      }
    | undefined;
  /**
   * Checked against every call, on the conversation the AI SDK hands the tool, before the tool
   * runs; a blocked call is refused (the model reads the refusal as the tool's error) and never
   * runs. It covers calls no model call of this process reviewed: a tool approval resumed in
   * another process (a serverless route, `useChat`) runs the approved call before any model
   * call, so the middleware's verdict from the first process is not there. A middleware's
   * verdict on the call still applies too (the strictest stands).
   * @default the policy of the `tracewardenMiddleware` given the same `tracer`, if any
   */
  policy?: ToolCallPolicy | undefined;
};

/**
 * The names of a tool set's tools whose type says they have an `execute` (as `tool()` types a
 * tool given one); every name for a set typed with an index signature (`ToolSet`), whose tools
 * may or may not have one: that is checked when `guardTools` runs. Exported only for the
 * declaration of {@link GuardAiToolsOptions}; not re-exported from the package.
 * @internal
 */
export type ExecutableToolName<Tools extends ToolSet> = string extends keyof Tools
  ? keyof Tools
  : {
      [Name in keyof Tools]-?: Tools[Name] extends { execute: (...args: never[]) => unknown }
        ? Name
        : never;
    }[keyof Tools];

/**
 * What a tool's guarded run gives: its `execute`'s resolved value, the last value of a streaming
 * (`async *execute`) tool; `unknown` when the type does not say. Exported only for the
 * declaration of {@link GuardAiToolsOptions}; not re-exported from the package.
 * @internal
 */
export type ToolOutputOf<Tool> = Tool extends {
  execute?: ((...args: never[]) => infer Output) | undefined;
}
  ? Output extends AsyncIterable<infer Value>
    ? Value
    : Awaited<Output>
  : unknown;

type Execute = (input: unknown, options: ToolExecutionOptions<unknown>) => unknown;

/** The AI SDK's options of the call being run, for the guarded function (retries included). */
const executions = new AsyncLocalStorage<ToolExecutionOptions<unknown>>();

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function' &&
    typeof (value as { then?: unknown }).then !== 'function'
  );
}

async function lastValue(values: AsyncIterable<unknown>): Promise<unknown> {
  let last: unknown;
  for await (const value of values) last = value;
  return last;
}

function combine(a: AbortSignal | undefined, b: AbortSignal): AbortSignal {
  return a === undefined ? b : AbortSignal.any([a, b]);
}

/**
 * Wraps every tool of an AI SDK `ToolSet` that has an `execute` with tracewarden's guards
 * (retry, timeout, budget, rate limit, circuit breaker, validators, hallucination checks,
 * `sideEffect`), keeping each tool's exact type. Each attempt's timeout is combined with the
 * tool's own `abortSignal`. Results, errors and refusals are recorded as TOOL_RESULT blocks
 * under the model's TOOL_CALL (by its `toolCallId`) with the guards' decisions; a guard's
 * refusal is thrown, so the AI SDK reports it as a `tool-error` the model reads, and the loop
 * goes on. In `onPolicyViolation: 'refuse'` mode a call the policy blocked never runs: the
 * tool answers the refusal instead. A streaming tool (`async *execute`) runs whole under the
 * guards and gives its last value (its preliminary results are not streamed).
 *
 * Records into `options.tracer`, else the enclosing `withTrace` (the middleware's tracer when
 * you pass the same one, or the telemetry integration's trace of the call).
 *
 * @param tools - the tool set passed to `generateText` / `streamText`
 * @param options - shared guard options, and `tools` for per-tool ones
 * @returns a copy of the tool set, each `execute` guarded (a streaming tool's stays an
 *   `async function*` that yields the final value; any other becomes async)
 * @example
 * ```ts
 * const tools = guardTools({ get_inbox, send_email }, {
 *   timeout: { timeoutSeconds: 10 },
 *   tools: { send_email: { sideEffect: 'write', rateLimit: { callsPerMinute: 5 } } },
 * });
 * await generateText({ model, tools, prompt: 'Summarise my inbox', stopWhen: isStepCount(5) });
 * ```
 */
export function guardTools<Tools extends ToolSet>(
  tools: Tools,
  options: GuardAiToolsOptions<Tools> = {},
): Tools {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw configurationError('guardTools', 'options', 'an options object (or no options)', options);
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools))
    throw configurationError(
      'guardTools',
      'tools',
      'an AI SDK ToolSet: an object of tool name to tool() (not an array)',
      tools,
    );
  for (const [name, tool] of Object.entries(tools)) {
    if (typeof tool !== 'object' || tool === null || Array.isArray(tool))
      throw configurationError('guardTools', `tools.${name}`, 'a tool (tool({ ... }))', tool);
    const execute = (tool as { execute?: unknown }).execute;
    if (execute !== undefined && typeof execute !== 'function')
      throw configurationError(
        'guardTools',
        `tools.${name}.execute`,
        'a function (or no execute, for a tool whose calls you answer yourself)',
        execute,
      );
  }
  const { policy, ...sharedOptions } = options;
  // per-tool options for a tool without an execute guard nothing: the AI SDK leaves such a call
  // (a client-side or approval-only tool) to the caller
  for (const name of Object.keys(options.tools ?? {})) {
    const tool = (tools as Record<string, { execute?: unknown } | undefined>)[name];
    if (tool !== undefined && typeof tool.execute !== 'function')
      throw configurationError(
        'guardTools',
        `options.tools.${name}`,
        `options only for tools with an execute: tool "${name}" has none, so the AI SDK never runs it and nothing would be guarded (guard the code that answers its calls instead)`,
        options.tools?.[name as ExecutableToolName<Tools>],
      );
  }
  if (
    policy !== undefined &&
    typeof (policy as { checkToolCall?: unknown } | null)?.checkToolCall !== 'function'
  )
    throw configurationError(
      'guardTools',
      'policy',
      'a policy (parsePolicy(), or an object with checkToolCall)',
      policy,
    );
  const functions: Record<string, (input: unknown, context: GuardCallContext) => unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = (tool as { execute?: Execute }).execute;
    if (typeof execute !== 'function') continue;
    functions[name] = (input, context) => {
      const execution = executions.getStore() as ToolExecutionOptions<unknown>;
      const result = execute.call(tool, input, {
        ...execution,
        abortSignal: combine(execution.abortSignal, context.signal),
      });
      // A streaming tool (`async *execute`) yields preliminary results: the guard covers the
      // whole run and its output is the last value (the AI SDK's final result).
      return isAsyncIterable(result) ? lastValue(result) : result;
    };
  }
  const guarded = guardFunctions(functions, sharedOptions as never);
  const tracer: Tracer | undefined = options.tracer;
  const result: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const guardedExecute = guarded[name];
    if (guardedExecute === undefined) {
      result[name] = tool;
      continue;
    }
    const providerOptions = (tool as { providerOptions?: Record<string, Record<string, unknown>> })
      .providerOptions;
    const execute = (
      input: unknown,
      execution: ToolExecutionOptions<unknown>,
    ): Promise<unknown> => {
      // the model call's verdict, then the tool's own policy (else the policy of the
      // middleware recording into the same tracer) on the conversation
      const into = tracer ?? currentTracer();
      const blocked = toolCallRefusal(
        policy ?? tracerPolicy(into),
        execution.messages,
        { id: execution.toolCallId, name, input },
        into,
      );
      if (blocked !== undefined) return Promise.reject(blocked);
      return executions.run(execution, () =>
        guardedExecute.invoke(
          {
            callId: execution.toolCallId,
            signal: execution.abortSignal,
            // a failed run is recorded as the model reads it (the SDK's `error-text`)
            errorOutput: modelErrorText,
            ...(tracer === undefined ? {} : { tracer }),
          },
          input as never,
        ),
      );
    };
    result[name] = {
      ...tool,
      providerOptions: {
        ...providerOptions,
        tracewarden: { ...providerOptions?.tracewarden, [guardedMarker]: true },
      },
      // a streaming tool stays one: its guarded run yields the final value (code that iterates
      // the tool's execute itself keeps working; the AI SDK takes the last value as the result)
      execute: isAsyncGeneratorFunction((tool as { execute?: unknown }).execute)
        ? async function* guardedStream(
            input: unknown,
            execution: ToolExecutionOptions<unknown>,
          ): AsyncGenerator<unknown> {
            yield await execute(input, execution);
          }
        : execute,
    };
  }
  return result as Tools;
}

/** Whether a tool's `execute` is an `async function*` (a streaming tool). */
function isAsyncGeneratorFunction(value: unknown): boolean {
  return (
    typeof value === 'function' &&
    (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'AsyncGeneratorFunction'
  );
}
