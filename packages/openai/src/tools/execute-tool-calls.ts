import {
  checkOptionsWith,
  configurationError,
  currentTracer,
  errorMessage,
  errorType,
  optionChecks,
  recordResultUnderCall,
  recordToolResult,
  scopedResultMetadata,
  ToolCallScope,
  type ToolCallStatus,
  ToolCallStatusSchema,
  type TraceEntry,
  type Tracer,
  warnRecordingError,
} from '@tracewarden/core';
import { tracerOfCalls, tracerOfObject } from '../wrap/link-recorded.js';
import { defaultTracerOf } from '../wrap/wrap-openai.js';
import { ToolArgumentsError } from './tool-arguments-error.js';
import { ToolOutputError } from './tool-output-error.js';
import { UnknownToolError } from './unknown-tool-error.js';

/**
 * A tool implementation: receives the model's arguments, JSON-parsed (an object); a custom
 * (free-form) tool receives `{ input }`, the model's input text. Guarded tools
 * (`guard(fn)`) fit, and so do tools that state the shape they expect
 * (`({ to }: { to: string }) => ...`): nothing here checks the model's arguments against that
 * shape, so validate them (a guard's `validators`) where it matters.
 */
// biome-ignore lint/suspicious/noExplicitAny: a tool declares its own argument type; `unknown` or `Record<string, unknown>` here would reject every typed tool under strictFunctionTypes
export type ToolFunction = (args: any) => unknown;

/** A chat-completions tool message to send back. */
export interface ChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/** A Responses-API function-call output item to send back. */
export interface FunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  output: string;
}

/** A Responses-API custom-tool-call output item to send back (the answer to a `custom_tool_call`). */
export interface CustomToolCallOutputItem {
  type: 'custom_tool_call_output';
  call_id: string;
  output: string;
}

/** A Responses-API output item to send back: a function call's or a custom tool call's. */
export type ToolCallOutputItem = FunctionCallOutputItem | CustomToolCallOutputItem;

/** Options of {@link executeToolCalls}. */
export interface ExecuteToolCallsOptions {
  /**
   * The tracer the calls were recorded in.
   * @default the tracer that recorded `source` (a message or response returned by a wrapped
   *   client, streamed or not), else the enclosing `withTrace` tracer, else the tracer that
   *   recorded these call ids, else the default tracer of `client`
   */
  tracer?: Tracer | undefined;
  /** The wrapped client whose default tracer to use when there is no other. */
  client?: object | undefined;
  /**
   * What a tool that throws does: `report` sends the error text back to the model (and records
   * status `failure`), `throw` rethrows it (after recording).
   * @default 'report'
   */
  onToolError?: 'report' | 'throw' | undefined;
  /**
   * Receives a result that could not be recorded (over the seed's 2 MB tool-result limit, a
   * closed tracer, ...). The tool's output still goes back to the model. A guarded tool
   * (`guard()`, `guardTools`) records its own result and reports through its `logger`.
   * @default a process warning (`TRACEWARDEN_RECORDING`), as the adapters report
   */
  onRecordingError?: ((error: unknown) => void) | undefined;
}

/** The options and their checks: checked where they are given (a typo never goes unnoticed). */
const executeOptionChecks = {
  tracer: optionChecks.tracer,
  client: (value: unknown) =>
    typeof value === 'object' && value !== null ? undefined : 'the wrapped OpenAI client',
  onToolError: optionChecks.oneOf('report', 'throw'),
  onRecordingError: optionChecks.function,
};

interface ProposedCall {
  id: string;
  name: string;
  /** JSON text of the arguments (a function call). */
  arguments: string;
  /** A custom tool call's free-form input: the tool receives `{ input }`. */
  input?: string | undefined;
}

type ChatLikeMessage = {
  tool_calls?:
    | readonly {
        id: string;
        type?: string;
        function?: { name: string; arguments: string };
        custom?: { name: string; input: string };
      }[]
    | null;
};
type ResponseLike = { output: readonly unknown[] };

function proposedCalls(source: ChatLikeMessage | ResponseLike): {
  calls: ProposedCall[];
  format: 'chat' | 'responses';
} {
  if ('output' in source && Array.isArray(source.output)) {
    const calls: ProposedCall[] = [];
    for (const item of source.output as Record<string, unknown>[]) {
      if (item?.type === 'function_call')
        calls.push({
          id: String(item.call_id),
          name: String(item.name),
          arguments: String(item.arguments ?? ''),
        });
      else if (item?.type === 'custom_tool_call')
        calls.push({
          id: String(item.call_id),
          name: String(item.name),
          arguments: '',
          input: String(item.input ?? ''),
        });
    }
    return { calls, format: 'responses' };
  }
  const calls: ProposedCall[] = [];
  for (const call of (source as ChatLikeMessage).tool_calls ?? []) {
    if (call.function !== undefined)
      calls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments });
    else if (call.custom !== undefined)
      calls.push({
        id: call.id,
        name: call.custom.name,
        arguments: '',
        input: String(call.custom.input ?? ''),
      });
  }
  return { calls, format: 'chat' };
}

/** The text the model reads for a tool's value; a value with no JSON text is a failed call. */
function toText(value: unknown, toolName: string): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new ToolOutputError({ toolName, cause });
  }
  if (typeof text !== 'string') throw new ToolOutputError({ toolName, cause: typeof value });
  return text;
}

/** What the model reads for a tool that failed (a guarded tool's TOOL_RESULT records it too). */
function errorText(error: unknown): string {
  return `Error: ${errorMessage(error)}`;
}

function parseArgs(call: ProposedCall): Record<string, unknown> {
  // a custom tool's input is free-form text, never JSON: the tool reads it as the TOOL_CALL
  // records it
  if (call.input !== undefined) return { input: call.input };
  if (call.arguments.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments);
  } catch (error) {
    throw new ToolArgumentsError({ toolName: call.name, callId: call.id, cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ToolArgumentsError({ toolName: call.name, callId: call.id });
  return parsed as Record<string, unknown>;
}

/** The scope id of a call that has none (`""`, decision 030): a scope needs one. */
const absentCallId = 'call_without_id';

/** A seed-004 ToolCallStatus, whatever the error carries (`failure` for anything else). */
function statusOf(error: unknown): ToolCallStatus {
  if (UnknownToolError.isInstance(error)) return 'hallucinated';
  if (ToolArgumentsError.isInstance(error)) return 'validation_failed';
  return toolStatus((error as { status?: unknown } | null)?.status, 'failure');
}

function toolStatus(value: unknown, fallback: ToolCallStatus): ToolCallStatus {
  const parsed = ToolCallStatusSchema.safeParse(value);
  return parsed.success ? parsed.data : fallback;
}

/** The call ids whose results link by order: `""` and ids that parallel calls share. */
function idsLinkedByOrder(calls: readonly { id: string }[]): Set<string> {
  const seen = new Set<string>();
  const byOrder = new Set<string>();
  for (const call of calls) {
    if (call.id === '' || seen.has(call.id)) byOrder.add(call.id);
    seen.add(call.id);
  }
  return byOrder;
}

/**
 * Runs the tool calls of a model response (a chat `message` or a Responses-API `response`)
 * and returns the messages to send back, in call order. Function calls and custom (free-form)
 * tool calls both run: a custom tool is looked up by its name and receives `{ input }`, its
 * answer is a `tool` message in chat and a `custom_tool_call_output` item for a `Response`.
 * The Responses API's built-in calls your code carries out (`shell_call`, `local_shell_call`,
 * `apply_patch_call`, `computer_call`) are skipped: they are recorded as TOOL_CALLs and checked
 * by the policy when the response arrives, but never run here, even by a tool of the same name
 * (`shell`, `apply_patch`, ...). Run them yourself and send back their output item
 * (`shell_call_output`, ...): the next request records it as the call's TOOL_RESULT. Each result
 * is recorded as a TOOL_RESULT block under its TOOL_CALL, with status and timing in its
 * metadata; a later request that sends these messages does not record them again. Pass guarded tools
 * (`guardTools(...)`) to have rate limits, budgets and breakers apply per tool; their refusals
 * are reported back to the model like errors.
 *
 * @param source - `completion.choices[0].message`, or a `Response`
 * @param tools - tool implementations by name, each receiving the parsed arguments
 * @param options - tracer, client, error handling
 * @returns chat `tool` messages, or `function_call_output` (and `custom_tool_call_output`)
 *   items for a `Response`; none for its built-in calls
 * @example
 * ```ts
 * const message = completion.choices[0].message;
 * messages.push(message, ...(await executeToolCalls(message, { get_inbox }, { client: openai })));
 * ```
 */
export async function executeToolCalls(
  source: ChatLikeMessage,
  tools: Readonly<Record<string, ToolFunction>>,
  options?: ExecuteToolCallsOptions,
): Promise<ChatToolMessage[]>;
export async function executeToolCalls(
  source: ResponseLike,
  tools: Readonly<Record<string, ToolFunction>>,
  options?: ExecuteToolCallsOptions,
): Promise<ToolCallOutputItem[]>;
export async function executeToolCalls(
  source: ChatLikeMessage | ResponseLike,
  tools: Readonly<Record<string, ToolFunction>>,
  givenOptions?: ExecuteToolCallsOptions,
): Promise<ChatToolMessage[] | ToolCallOutputItem[]> {
  checkOptionsWith(givenOptions, 'executeToolCalls', executeOptionChecks);
  if (typeof source !== 'object' || source === null)
    throw configurationError(
      'executeToolCalls',
      'source',
      "the model's answer: a chat message with tool_calls, or a Responses API response",
      source,
    );
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools))
    throw configurationError(
      'executeToolCalls',
      'tools',
      'an object of tool functions by name ({ get_inbox, send_email })',
      tools,
    );
  const options = givenOptions ?? {};
  const { calls, format } = proposedCalls(source);
  const tracer =
    options.tracer ??
    tracerOfObject(source) ??
    currentTracer() ??
    tracerOfCalls(calls) ??
    (options.client === undefined ? undefined : defaultTracerOf(options.client));
  // Results of calls without ids (`""`, as Gemini-backed agents send them) and of parallel calls
  // sharing one id (`call_0` twice) link to their calls by order (decisions 002, 030): with such
  // a call in the batch, every result is recorded in the calls' order once all have run, not as
  // each tool finishes.
  const byOrder = idsLinkedByOrder(calls);
  const inOrder = tracer !== undefined && byOrder.size > 0;
  const records: (() => void)[] = [];
  const results = await Promise.all(
    calls.map(async (call, index) => {
      const started = performance.now();
      let output: string;
      let failure: unknown;
      // A guarded tool (`guard`, `guardTools`) records its own TOOL_RESULT, with the guards'
      // decisions, straight under the model's TOOL_CALL (its call id); other tools are recorded
      // here, with the record of a guarded function they call (see ToolCallScope).
      let recordedByGuard = false;
      // the record of a guarded tool run for a call linked by order, recorded here in order
      let guardEntry: TraceEntry | undefined;
      let scope: ToolCallScope | undefined;
      let metadata: Record<string, unknown>;
      try {
        const tool = Object.hasOwn(tools, call.name) ? tools[call.name] : undefined;
        if (tool === undefined)
          throw new UnknownToolError({ toolName: call.name, known: Object.keys(tools) });
        const args = parseArgs(call);
        let value: unknown;
        if (isGuarded(tool) && inOrder && byOrder.has(call.id)) {
          recordedByGuard = true;
          value = await tool.invoke(
            { callId: '', tracer: null, onEntry: (entry) => (guardEntry = entry) },
            args,
          );
        } else if (isGuarded(tool)) {
          recordedByGuard = true;
          // without a tracer found here, the guard's own (its `tracer` option, `withTrace`)
          value = await tool.invoke(
            tracer === undefined
              ? { callId: call.id, errorOutput: errorText }
              : { callId: call.id, tracer, errorOutput: errorText },
            args,
          );
        } else {
          // a guarded function the tool calls (`({ city }) => weather(city)`) takes the model's
          // call from the scope instead of recording one of its own. A call linked by order gets
          // a scope too: its result, with the guard's record, is recorded here by the order rule
          // (the scope's id only names the guard's held record, never recorded)
          const inScope = new ToolCallScope(byOrder.has(call.id) ? absentCallId : call.id, tracer);
          scope = inScope;
          value = await inScope.run(() => tool(args));
        }
        output = toText(value, call.name);
        metadata = {
          status: 'success',
          tool_name: call.name,
          execution_time_ms: round(performance.now() - started),
        };
      } catch (error) {
        failure = error;
        const message = errorMessage(error);
        output = errorText(error);
        metadata = {
          status: statusOf(error),
          tool_name: call.name,
          execution_time_ms: round(performance.now() - started),
          error: { type: errorType(error), message },
        };
        const code = (error as { code?: unknown } | null)?.code;
        if (typeof code === 'string') (metadata.error as Record<string, unknown>).code = code;
      }
      const held = guardEntry;
      const record = (into: Tracer) => {
        try {
          if (held !== undefined)
            // the guard's record, with the text the model reads for a failure
            recordResultUnderCall(
              into,
              failure === undefined
                ? held
                : { call: held.call, result: { ...held.result, return_value: output } },
            );
          else
            recordToolResult(into, {
              callId: call.id,
              output,
              metadata: scope === undefined ? metadata : scopedResultMetadata(scope, metadata),
            });
        } catch (error) {
          // the model still gets the output: a result the trace cannot hold is reported
          (options.onRecordingError ?? warnRecordingError)(error);
        }
      };
      if (tracer !== undefined && (!recordedByGuard || held !== undefined)) {
        if (inOrder) records[index] = () => record(tracer);
        else record(tracer);
      }
      return { call, output, failure };
    }),
  );
  for (const record of records) record?.();
  if (options.onToolError === 'throw') {
    const failed = results.find((result) => result.failure !== undefined);
    if (failed !== undefined) throw failed.failure;
  }
  if (format === 'responses') {
    return results.map(
      ({ call, output }): ToolCallOutputItem => ({
        type: call.input === undefined ? 'function_call_output' : 'custom_tool_call_output',
        call_id: call.id,
        output,
      }),
    );
  }
  return results.map(
    ({ call, output }): ChatToolMessage => ({
      role: 'tool',
      tool_call_id: call.id,
      content: output,
    }),
  );
}

/** A function made by `guard()` / `guardTools()`: it takes per-call options, the call id among them. */
function isGuarded(tool: ToolFunction): tool is ToolFunction & {
  invoke(
    options: {
      callId: string;
      tracer?: Tracer | null;
      errorOutput?: (error: unknown) => unknown;
      onEntry?: (entry: TraceEntry) => void;
    },
    args: unknown,
  ): Promise<unknown>;
} {
  return (
    typeof (tool as { invoke?: unknown }).invoke === 'function' &&
    typeof (tool as { toolName?: unknown }).toolName === 'string'
  );
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
