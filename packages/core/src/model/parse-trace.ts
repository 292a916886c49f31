import { TraceError, TracewardenError } from '../errors/index.js';
import type { ChatEvent, Trace } from './chat-events.js';
import { convertToChatEvents } from './foreign-chat-events.js';
import type { fromAnthropicMessages } from './from-anthropic-messages.js';
import type { fromResponsesItems } from './from-responses-items.js';
import { legacyFunctionCalls, legacyFunctionRole } from './legacy-function-call.js';
import { normaliseContent, toolOutputContent } from './normalise-content.js';
import { withReasoningParts } from './reasoning-parts.js';
import { hasLoneSurrogate, replaceLoneSurrogates } from './replace-lone-surrogates.js';
import { describe, invalid, isObject } from './trace-input.js';
import { type CallTurn, firstUnansweredCall } from './unanswered-calls.js';

/** Result of {@link safeParseTrace}: the normalised trace, or the error {@link parseTrace} would throw. */
export type SafeParseTraceResult =
  | { success: true; trace: Trace }
  | { success: false; error: TraceError };

/** Lone UTF-16 surrogates {@link parseTrace} replaced in one event. */
export interface LoneSurrogatesFound {
  /** The event's position in the input (as in error paths: `"3"`). */
  path: string;
  /** How many lone surrogates its strings and keys held, each now U+FFFD. */
  count: number;
}

/** Options of {@link parseTrace} and {@link safeParseTrace}. */
export interface ParseTraceOptions {
  /**
   * Called once per event in which lone UTF-16 surrogates (half of a character, as a truncated
   * export leaves it) were replaced by U+FFFD, so that a caller can say so (the command line
   * warns `LONE_SURROGATE`). Without it they are replaced all the same.
   */
  onLoneSurrogates?: ((found: LoneSurrogatesFound) => void) | undefined;
}

type JsonObject = Record<string, unknown>;

/**
 * The arguments of a flat tool call (no `function` object): `arguments`, else LangChain's
 * `args`, else Anthropic's `input`; `undefined` when it has none of them.
 */
export function flatCallArguments(call: Record<string, unknown>): unknown {
  if (call.arguments !== undefined && call.arguments !== null) return call.arguments;
  if (call.args !== undefined && call.args !== null) return call.args;
  return call.input;
}

/**
 * The keys a trace object holds its events under, in the order {@link parseTrace} looks for
 * them: `messages`, `events`, and `traj` (tau-bench's results, `[{ task_id, reward, info, traj }]`).
 * @example
 * ```ts
 * traceEventKeys.find((key) => Object.hasOwn(run, key)); // 'traj' for a tau-bench run
 * ```
 */
export const traceEventKeys = ['messages', 'events', 'traj'] as const;

function eventsOf(input: unknown): readonly unknown[] {
  if (Array.isArray(input)) return input;
  if (isObject(input)) {
    for (const key of traceEventKeys) {
      if (!Object.hasOwn(input, key)) continue;
      const events = input[key];
      if (!Array.isArray(events)) {
        throw invalid(
          key,
          `Trace field "${key}" must be an array of events, got ${describe(events)}.`,
        );
      }
      return events;
    }
  }
  throw invalid(
    '',
    `A trace must be an array of events, or an object with a "messages", "events" or "traj" array; got ${describe(input)}${wrappedEventsHint(input)}.`,
  );
}

// `{ "trace": [...] }`: name the key the events are under, which is not read
function wrappedEventsHint(input: unknown): string {
  if (!isObject(input)) return '';
  for (const key of Object.keys(input)) {
    const inner = input[key];
    if (Array.isArray(inner) && isObject(inner[0]) && typeof inner[0].role === 'string')
      return ` whose events look to be under "${key}"; pass them as an array, or under "messages"`;
  }
  return '';
}

// A call without arguments is spelt in many ways: no field, `null` (Python's None), `""`
// (OpenAI's tools without parameters) or `"null"`; all are `{}` (decision 003).
function normaliseArguments(value: unknown, path: string, found: { count: number }): JsonObject {
  if (value === undefined || value === null) return {};
  if (isObject(value)) return { ...value };
  if (typeof value === 'string') {
    if (value.trim() === '') return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw invalid(
        path,
        `Tool call arguments at ${path} are not valid JSON (${(error as Error).message}); pass an object or a JSON string of one.`,
        error,
      );
    }
    if (parsed === null) return {};
    if (!isObject(parsed)) {
      throw invalid(
        path,
        `Tool call arguments at ${path} must be a JSON object, got ${describe(parsed)}.`,
      );
    }
    // JSON text spells half a character as an escape (`\ud83d`), which parsing brings back
    return hasLoneSurrogate(parsed) ? (replaceLoneSurrogates(parsed, found) as JsonObject) : parsed;
  }
  throw invalid(
    path,
    `Tool call arguments at ${path} must be an object or a JSON string of one; got ${describe(value)}.`,
  );
}

/**
 * The trace metadata of an Invariant Explorer raw event list, which carries it as a first
 * "event" `{ "metadata": { ... } }` (no role, no other field); `undefined` when `events` does not
 * start with one.
 * @param events - the events as read
 * @returns the metadata object, or undefined
 * @internal
 */
export function leadingTraceMetadata(events: readonly unknown[]): JsonObject | undefined {
  const first: unknown = events[0];
  if (!isObject(first) || !isObject(first.metadata)) return undefined;
  return Object.keys(first).length === 1 ? first.metadata : undefined;
}

// Some exports number their calls (`"id": 0`); an integer id is read as its decimal text.
function idText(value: unknown): unknown {
  return Number.isSafeInteger(value) ? String(value) : value;
}

function collectCallIds(events: readonly unknown[]): Set<string> {
  const ids = new Set<string>();
  for (const event of events) {
    if (!isObject(event) || !Array.isArray(event.tool_calls)) continue;
    for (const call of event.tool_calls as unknown[]) {
      const id = isObject(call) ? idText(call.id) : undefined;
      if (typeof id === 'string') ids.add(id);
    }
  }
  return ids;
}

/**
 * The events of a trace in the chat-event shape: an OpenAI Responses API item list or an
 * Anthropic Messages API run rewritten, with each event's position in the input (`undefined`
 * when nothing was rewritten: positions are the events' own). A leading Explorer `{ metadata }`
 * element stays first, counted in `skipped`.
 */
function chatEventsOf(input: unknown): {
  events: readonly unknown[];
  sources?: number[];
  skipped: 0 | 1;
} {
  const events = eventsOf(input);
  const skipped = leadingTraceMetadata(events) === undefined ? 0 : 1;
  const converted = convertToChatEvents(
    skipped === 0 ? events : events.slice(skipped),
    isObject(input) ? input.system : undefined,
  );
  if (converted === undefined) return { events, skipped };
  if (skipped === 0) return { ...converted, skipped };
  return {
    events: [events[0], ...converted.events],
    sources: [0, ...converted.sources.map((source) => (source < 0 ? source : source + skipped))],
    skipped,
  };
}

function normalise(input: unknown, options: ParseTraceOptions): Trace {
  // Explorer's `{ metadata }` first event is not an event; error paths keep the input's positions
  const { events, sources, skipped } = chatEventsOf(input);
  const usedIds = collectCallIds(events);
  const trace: ChatEvent[] = new Array(events.length - skipped);
  // Calls not yet answered, by event (the calls of one message, in order), most recent last.
  const unanswered: CallTurn[] = [];
  const answered = new Set<string>();
  const isAnswered = (callId: string) => answered.has(callId);
  let lastCallId: string | undefined;

  for (let i = skipped; i < events.length; i++) {
    let event: unknown = events[i];
    // an Anthropic message rewritten into several events: each names the message it came from
    const source = sources === undefined ? i : (sources[i] as number);
    const path = source < 0 ? 'system' : String(source);
    // Blocks hold text a UTF-8 store can keep: half of a character becomes U+FFFD (decision 003)
    const found = { count: 0 };
    if (hasLoneSurrogate(event)) event = replaceLoneSurrogates(event, found);
    // reasoning kept as content parts (Anthropic's `thinking`, Inspect AI's `reasoning`)
    if (isObject(event) && event.role === 'assistant') event = withReasoningParts(event);
    if (!isObject(event)) {
      throw invalid(path, `Event ${path} must be an object, got ${describe(event)}.`);
    }
    if (typeof event.role !== 'string') {
      throw invalid(
        `${path}.role`,
        `Event ${path} needs a string "role" (e.g. "user", "assistant", "tool"); got ${describe(event.role)}.`,
      );
    }
    const out: JsonObject = { ...event };
    // OpenAI's legacy function calling: a `function_call` is the message's one tool call, and
    // a `function` message that answers a call is its tool output
    const legacyCalls = legacyFunctionCalls(event);
    if (legacyCalls !== undefined) {
      delete out.function_call;
      out.tool_calls = legacyCalls;
    }
    const isLegacyOutput =
      event.role === legacyFunctionRole &&
      (lastCallId !== undefined || typeof event.tool_call_id === 'string');
    if (isLegacyOutput) out.role = 'tool';
    const isOutput = event.role === 'tool' || isLegacyOutput;
    if (Object.hasOwn(event, 'content')) {
      out.content = normaliseContent(
        isOutput ? toolOutputContent(event.content) : event.content,
        `${path}.content`,
      );
    } else if (isOutput) {
      out.content = null;
    }

    if (isOutput) {
      // tau2-bench's tool messages name their call by `id` (no `tool_call_id`)
      const ownId = event.tool_call_id === undefined ? idText(event.id) : undefined;
      const callId =
        typeof ownId === 'string' && usedIds.has(ownId) && !answered.has(ownId)
          ? ownId
          : idText(event.tool_call_id);
      // "" is how some providers (Gemini) say "no id", on calls and outputs alike: absent
      if (callId === undefined || callId === null || callId === '') {
        // the first unanswered call of the latest message that has one, else the most recent
        const linked = firstUnansweredCall(unanswered, isAnswered) ?? lastCallId;
        if (linked === undefined) {
          delete out.tool_call_id;
        } else {
          out.tool_call_id = linked;
          answered.add(linked);
        }
      } else if (typeof callId === 'string') {
        out.tool_call_id = callId;
        answered.add(callId);
      } else {
        throw invalid(
          `${path}.tool_call_id`,
          `Tool output ${path} has a "tool_call_id" that is ${describe(callId)}; it must be a string, a safe integer (at most 9007199254740991; write a larger id as a string) or absent.`,
        );
      }
    }

    if (Object.hasOwn(out, 'tool_calls')) {
      const calls = out.tool_calls;
      if (calls === null) {
        delete out.tool_calls;
      } else if (!Array.isArray(calls)) {
        throw invalid(
          `${path}.tool_calls`,
          `"tool_calls" of event ${path} must be an array, got ${describe(calls)}.`,
        );
      } else {
        const normalised: JsonObject[] = new Array(calls.length);
        const turnCalls: string[] = [];
        for (let j = 0; j < calls.length; j++) {
          const call: unknown = calls[j];
          const callPath = `${path}.tool_calls.${j}`;
          if (!isObject(call)) {
            throw invalid(
              callPath,
              `Tool call ${callPath} must be an object, got ${describe(call)}.`,
            );
          }
          let fn = call.function;
          let agentDojoArgs = false;
          let inspectArguments = false;
          // AgentDojo's shape: `{ function: 'send_money', args: { ... }, id }`; Inspect AI's
          // logs (AgentHarm and other evals): `{ function: 'send_money', arguments: { ... }, id }`
          if (
            typeof fn === 'string' &&
            (call.args === undefined || call.args === null || isObject(call.args))
          ) {
            inspectArguments =
              (call.args === undefined || call.args === null) &&
              (isObject(call.arguments) || typeof call.arguments === 'string');
            fn = { name: fn, arguments: (inspectArguments ? call.arguments : call.args) ?? {} };
            agentDojoArgs = true;
          }
          // OpenAI's custom (free-form) tool call: `{ type: 'custom', custom: { name, input } }`,
          // read as the OpenAI adapter records it, arguments `{ input }` (the call keeps its type
          // and its `custom` object)
          if (fn === undefined && isObject(call.custom) && typeof call.custom.name === 'string') {
            const input = call.custom.input;
            if (input !== undefined && input !== null && typeof input !== 'string') {
              throw invalid(
                `${callPath}.custom.input`,
                `Custom tool call ${callPath} has an "input" that is ${describe(input)}; OpenAI sends it as a string (or leave it out).`,
              );
            }
            fn = { name: call.custom.name, arguments: { input: input ?? '' } };
          }
          // a flat call `{ id, name, arguments }` (tau2-bench's results, the shorthand a policy
          // reads too), LangChain's `{ name, args, id, type: 'tool_call' }` or an Anthropic
          // `{ name, input }`: its name and arguments are the function's
          let flatCall = false;
          const flatArguments = flatCallArguments(call);
          if (
            fn === undefined &&
            typeof call.name === 'string' &&
            call.custom === undefined &&
            (flatArguments === undefined ||
              flatArguments === null ||
              isObject(flatArguments) ||
              typeof flatArguments === 'string')
          ) {
            fn = { name: call.name, arguments: flatArguments ?? {} };
            flatCall = true;
          }
          if (!isObject(fn)) {
            throw invalid(
              `${callPath}.function`,
              `Tool call ${callPath} needs a "function" object with "name" and "arguments" (or OpenAI's "custom" object with "name" and "input"); got ${describe(fn)}.`,
            );
          }
          if (typeof fn.name !== 'string') {
            throw invalid(
              `${callPath}.function.name`,
              `Tool call ${callPath} needs a string "function.name"; got ${describe(fn.name)}.`,
            );
          }
          const args = normaliseArguments(fn.arguments, `${callPath}.function.arguments`, found);
          const type = call.type;
          if (type !== undefined && type !== null && typeof type !== 'string') {
            throw invalid(
              `${callPath}.type`,
              `Tool call ${callPath} has a "type" that is ${describe(type)}; it must be a string such as "function" (or leave it out).`,
            );
          }
          let id: string;
          const callId = idText(call.id);
          if (callId === undefined || callId === null || callId === '') {
            const base = `call_${i - skipped}_${j}`;
            id = base;
            for (let k = 1; usedIds.has(id); k++) id = `${base}_${k}`;
            usedIds.add(id);
          } else if (typeof callId === 'string') {
            id = callId;
          } else {
            throw invalid(
              `${callPath}.id`,
              `Tool call ${callPath} has an "id" that is ${describe(call.id)}; it must be a string, a safe integer (at most 9007199254740991; write a larger id as a string) or absent.`,
            );
          }
          const normal: JsonObject = {
            ...call,
            id,
            type: typeof type === 'string' ? type : 'function',
            function: { ...fn, arguments: args },
          };
          if (agentDojoArgs) delete normal.args;
          if (inspectArguments) delete normal.arguments;
          if (flatCall) {
            delete normal.name;
            delete normal.arguments;
            delete normal.args;
            delete normal.input;
          }
          normalised[j] = normal;
          turnCalls.push(id);
          lastCallId = id;
        }
        if (turnCalls.length > 0) unanswered.push({ calls: turnCalls, next: 0 });
        out.tool_calls = normalised;
      }
    }
    trace[i - skipped] = out as ChatEvent;
    if (found.count > 0) options.onLoneSurrogates?.({ path, count: found.count });
  }
  return trace;
}

/**
 * Parses and normalises a trace in the seeds' chat-event format (Invariant / OpenAI chat shape).
 *
 * Accepts an array of events, or an object holding one as `messages`, `events` or `traj` (a
 * tau-bench run); a first
 * element `{ metadata: { ... } }` and nothing else (how Invariant Explorer's raw event lists carry
 * a trace's metadata) is not an event and is left out, as the `metadata` of an object is (read
 * both with `parseDataset`). The result is
 * a new array of new event objects (the input is never mutated; values of unknown fields are
 * shared, not copied). Normal form:
 * - any `role` string is allowed, and unknown fields are kept;
 * - AgentDojo's run shape is read too: a tool call `{ function: 'name', args: { ... }, id }` becomes
 *   `{ id, type: 'function', function: { name, arguments } }` (its other fields, such as
 *   `placeholder_args`, are kept), and a text part `{ type: 'text', content }` becomes
 *   `{ type: 'text', text }`; a run object's `messages` is the trace;
 * - tool-call `arguments` are always an object: a JSON string is parsed; a call without
 *   arguments (`arguments` missing, `null`, `""` as OpenAI sends for a tool without parameters,
 *   or `"null"`) gets `{}`; `type` defaults to `'function'` (other strings, such as `custom` or `mcp`, are kept); OpenAI's custom
 *   tool call `{ type: 'custom', custom: { name, input } }` gets `function: { name, arguments: { input } }`
 *   (as the OpenAI adapter records it; `custom` is kept); a call without `id` (or with `""`) gets
 *   `call_<eventIndex>_<callIndex>` (suffixed `_1`, `_2`, ... if that id is taken);
 * - image parts are `{ type: 'image', image_url: '<url>' }`: OpenAI's
 *   `{ type: 'image_url', image_url: { url, detail } }` and `{ type: 'image', image_url: { url } }`
 *   become that, with the object's other fields (`detail`) moved onto the part;
 * - a tool output (`role: 'tool'`) without `tool_call_id` (absent, `null` or `""`, which some
 *   providers such as Gemini send, like `""` call ids) is linked to the first unanswered tool
 *   call of the latest message before it that has one (outputs of parallel calls come in the
 *   calls' order), else the most recent tool call, else left unset
 *   (contributing/decisions/002-tool-output-linking.md); its missing `content` becomes `null`;
 * - an integer call id or `tool_call_id` (some exports number their calls) becomes its decimal
 *   string (`0` → `'0'`);
 * - a tool output's `content` that is neither text, `null` nor a list of content parts (an
 *   object, a number, a list of records: a tool's data as some exports keep it) becomes its JSON
 *   text, as `blocksToEvents` writes such an output;
 * - `tool_calls: null` is dropped;
 * - an assistant message's reasoning parts (Anthropic's `{ type: 'thinking', thinking }`,
 *   Inspect AI's `{ type: 'reasoning', reasoning }` unless `redacted`) move to its
 *   `reasoning_content` (joined by a blank line; `content` becomes `null` when nothing else is
 *   left), unless it has one;
 * - a run in Anthropic's Messages API shape (content holding `tool_use` / `tool_result` parts)
 *   is first rewritten as {@link fromAnthropicMessages} does (its calls `tool_calls`, its results
 *   `role: 'tool'` events, a trace object's `system` the first event), and an OpenAI Responses
 *   API item list (`function_call` / `function_call_output` items, `input_text` parts) as
 *   {@link fromResponsesItems} does; error paths then name the input message or item an event
 *   came from (`system` for the system message);
 * - a lone UTF-16 surrogate (half of a character, as a truncated export leaves it) in any string
 *   or key becomes U+FFFD, the replacement character, as a UTF-8 decoder reads it: blocks must
 *   be UTF-8 (seed 002), and a trace whose text is cut mid-character is still read whole;
 *   `options.onLoneSurrogates` hears of each event where this happened;
 * - OpenAI's legacy function calling is read as tool calling: an assistant message's
 *   `function_call: { name, arguments }` (when it has no `tool_calls` of its own) becomes its one
 *   tool call (`type: 'function'`, a generated id), and a `role: 'function'` message after a call
 *   becomes that call's tool output (`role: 'tool'`, linked by the rule above, `name` kept), so
 *   policies and the converters see the call and what it returned. A `function` message with no
 *   call before it keeps its role.
 *
 * Parsing a normalised trace again returns an equal trace.
 *
 * @param input - the trace, e.g. from `JSON.parse`
 * @param options - a callback for replaced lone surrogates
 * @returns the normalised trace
 * @throws TraceError `VALIDATION` with `details.path` the address of the problem (e.g.
 *   `"1.tool_calls.0.function.arguments"`, by the event's position in the input) for wrong types
 *   or invalid JSON arguments
 * @example
 * ```ts
 * const trace = parseTrace([
 *   { role: 'user', content: 'Inbox?' },
 *   { role: 'assistant', content: null, tool_calls: [{ function: { name: 'get_inbox', arguments: '{"n":2}' } }] },
 *   { role: 'tool', content: '2 emails' },
 * ]);
 * trace[1].tool_calls?.[0]?.id; // 'call_1_0'
 * trace[2].tool_call_id; // 'call_1_0'
 * ```
 */
export function parseTrace(input: unknown, options: ParseTraceOptions = {}): Trace {
  try {
    return normalise(input, options);
  } catch (error) {
    if (TracewardenError.isInstance(error)) throw error;
    // RangeError (stack or string length) or a throwing getter: report it, never crash.
    throw invalid(
      '',
      `The trace could not be read (${error instanceof Error ? error.message : String(error)}); check that it is plain JSON data.`,
      error,
    );
  }
}

/**
 * Like {@link parseTrace}, but returns the error instead of throwing it.
 *
 * @param input - the trace, e.g. from `JSON.parse`
 * @param options - as for {@link parseTrace}
 * @returns `{ success: true, trace }` or `{ success: false, error }` with a `VALIDATION` TraceError
 * @example
 * ```ts
 * const result = safeParseTrace(JSON.parse(text));
 * if (!result.success) console.error(result.error.details.path, result.error.message);
 * ```
 */
export function safeParseTrace(
  input: unknown,
  options: ParseTraceOptions = {},
): SafeParseTraceResult {
  try {
    return { success: true, trace: parseTrace(input, options) };
  } catch (error) {
    if (error instanceof TraceError) return { success: false, error };
    return {
      success: false,
      error: invalid('', 'The trace could not be read; check that it is plain JSON data.', error),
    };
  }
}
