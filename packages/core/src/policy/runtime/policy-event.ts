import { flatCallArguments } from '../../model/parse-trace.js';
import { EVENT_MARK, isRecord } from './is-record.js';

/** @internal Concrete event kinds (a rule type like `Message` or `Event` selects several). */
export type EventKind = 'Message' | 'ToolCall' | 'ToolOutput' | 'Tool';

/** @internal A piece of text with its address in the trace (for character ranges). */
export interface AddressedText {
  text: string;
  address: string | undefined;
}

/**
 * @internal One flattened event of a trace, and its value in rules. The store keeps events as
 * columns and builds these objects only for events a rule looks at. `data` is normalised lazily
 * (tool-call arguments parsed from JSON strings, missing ids filled in).
 */
export class PolicyEvent {
  private cachedAddress: string | undefined = undefined;
  /** Cache of the event's text pieces (`in` checks). */
  texts: AddressedText[] | undefined = undefined;

  constructor(
    /** Position in the flattened sequence; `->` and `~>` compare these. */
    readonly position: number,
    /** Index of the top-level trace entry (tool calls share their message's index). */
    readonly index: number,
    readonly kind: EventKind,
    /** Tool calls of a message and entries of a tool list: the sub-index; else -1. */
    readonly sub: number,
    private raw: Record<string, unknown>,
    private pending: boolean,
    /** ToolOutput: position of the call it answers, or -1. */
    readonly callPosition: number,
    /** ToolCall: function name; ToolOutput: name of the answered call; Tool: tool name. */
    readonly toolName: string | undefined,
  ) {}

  /** Address into the trace: `"3"`, `"3.tool_calls.0"`, `"4.tools.1"`. */
  get address(): string {
    if (this.cachedAddress === undefined) {
      this.cachedAddress =
        this.sub < 0
          ? String(this.index)
          : `${this.index}.${this.kind === 'Tool' ? 'tools' : 'tool_calls'}.${this.sub}`;
    }
    return this.cachedAddress;
  }

  /** Id given to a tool call that has none (deterministic). */
  get fallbackId(): string {
    return fallbackId(this.index, this.sub);
  }

  /** The event as rules see it (normalised on first use). */
  get data(): Record<string, unknown> {
    if (this.pending) {
      this.pending = false;
      if (this.kind === 'ToolCall') this.raw = normalizeToolCall(this.raw, this.fallbackId);
      else this.raw = normalizeMessageCalls(this.raw, this.index);
    }
    return this.raw;
  }
}

// on the prototype, so events carry no extra field: isRecord must not take them for plain data
Object.defineProperty(PolicyEvent.prototype, EVENT_MARK, { value: true });

/**
 * @internal A call id as `parseTrace` reads one: a non-empty string, or a safe integer as its
 * text. `""` (how Gemini-backed agents say "no id"), `null` and anything else are absent
 * (decision 030).
 */
export function callIdText(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  return Number.isSafeInteger(value) ? String(value) : undefined;
}

/** @internal The id given to a tool call without one (deterministic). */
export const fallbackId = (index: number, sub: number): string =>
  sub < 0 ? `call_${index}` : `call_${index}_${sub}`;

function normalizeMessageCalls(
  message: Record<string, unknown>,
  index: number,
): Record<string, unknown> {
  const calls = message.tool_calls;
  if (!Array.isArray(calls)) return message;
  let changed = false;
  const normalized = calls.map((call, j) => {
    const n = isRecord(call)
      ? normalizeToolCall(call, `call_${index}_${j}`)
      : emptyCall(`call_${index}_${j}`);
    if (n !== call) changed = true;
    return n;
  });
  return changed ? { ...message, tool_calls: normalized } : message;
}

/**
 * Normalises one tool call, as `parseTrace` reads it: arguments given as a JSON string are
 * parsed; a missing id gets a deterministic one; AgentDojo's `{ function: 'send_money', args,
 * id }` (Inspect AI's logs: `arguments` for `args`) and OpenAI's custom call `{ type: 'custom', custom: { name, input } }` become `function`
 * objects (`{ name, arguments }`, a custom call's arguments `{ input }`). Returns the input
 * itself when nothing changes.
 * @internal
 */
export function normalizeToolCall(
  call: Record<string, unknown>,
  fallbackId: string,
): Record<string, unknown> {
  let fn = call.function;
  let changed = false;
  let dropArgs = false;
  if (!isRecord(fn)) {
    const args = call.args;
    const custom = call.custom;
    if (typeof fn === 'string' && (args === undefined || args === null || isRecord(args))) {
      // AgentDojo's run files: the name in `function`, the arguments in `args`; Inspect AI's
      // logs: the arguments in `arguments`
      const given = call.arguments;
      const inspectArguments =
        (args === undefined || args === null) && (isRecord(given) || typeof given === 'string');
      fn = { name: fn, arguments: (inspectArguments ? given : args) ?? {} };
      changed = true;
      dropArgs = args !== undefined;
    } else if (fn === undefined && isRecord(custom) && typeof custom.name === 'string') {
      const input = custom.input;
      fn = { name: custom.name, arguments: { input: typeof input === 'string' ? input : '' } };
      changed = true;
    } else if (typeof call.name === 'string') {
      // accept the { name, arguments } shorthand, LangChain's { name, args } and Anthropic's
      // { name, input }, as parseTrace does
      fn = { name: call.name, arguments: flatCallArguments(call) ?? {} };
      changed = true;
    } else {
      fn = { name: '', arguments: {} };
      changed = true;
    }
  }
  let fnRecord = fn as Record<string, unknown>;
  const args = fnRecord.arguments;
  if (typeof args === 'string') {
    let parsed: unknown;
    try {
      parsed = args.trim() === '' ? {} : JSON.parse(args);
    } catch {
      parsed = undefined;
    }
    if (isRecord(parsed)) {
      fnRecord = { ...fnRecord, arguments: parsed };
      changed = true;
    }
  } else if (args === undefined || args === null) {
    fnRecord = { ...fnRecord, arguments: {} };
    changed = true;
  }
  const id = callIdText(call.id);
  if (!changed && id === call.id && call.type !== undefined) return call;
  const normalized: Record<string, unknown> = {
    ...call,
    id: id ?? fallbackId,
    type: call.type ?? 'function',
    function: fnRecord,
  };
  if (dropArgs) delete normalized.args;
  return normalized;
}

/** @internal The function name of a tool call (OpenAI shape or `{ name }` shorthand). */
export const toolNameOf = (call: Record<string, unknown>): string | undefined => {
  const fn = call.function;
  if (isRecord(fn)) return typeof fn.name === 'string' ? fn.name : undefined;
  if (typeof fn === 'string') return fn;
  const custom = call.custom;
  if (fn === undefined && isRecord(custom) && typeof custom.name === 'string') return custom.name;
  return typeof call.name === 'string' ? call.name : undefined;
};

/** @internal A placeholder for a tool call entry that is not an object. */
export const emptyCall = (id: string): Record<string, unknown> => ({
  id,
  type: 'function',
  function: { name: '', arguments: {} },
});
