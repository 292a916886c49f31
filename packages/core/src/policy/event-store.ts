import { PolicyError } from './policy-error.js';
import type { PolicyEventType } from './policy-types.js';

/** @internal Concrete event kinds (a rule type like `Message` or `Event` selects several). */
export type EventKind = 'Message' | 'ToolCall' | 'ToolOutput' | 'Tool';

/**
 * @internal One flattened event of a trace. `data` is normalised lazily (tool-call arguments
 * parsed from JSON strings, missing ids filled in) so that events no rule looks at cost nothing.
 */
export class PolicyEvent {
  /** ToolOutput: position of the call it answers, or -1. */
  callPosition = -1;
  /** ToolCall: function name; ToolOutput: name of the answered call; Tool: tool name. */
  toolName: string | undefined = undefined;
  /** Cache of the event's rule value. */
  value: unknown = undefined;
  private cachedAddress: string | undefined = undefined;

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
    return this.sub < 0 ? `call_${this.index}` : `call_${this.index}_${this.sub}`;
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

type Journal = (() => void)[];

/** @internal A rollback point of an {@link EventStore}. */
export interface StoreMark {
  events: number;
  traceLength: number;
  lastCall: number;
  journal: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Normalises one tool call: arguments given as a JSON string are parsed; a missing id gets a
 * deterministic one. Returns the input itself when nothing changes.
 * @internal
 */
export function normalizeToolCall(
  call: Record<string, unknown>,
  fallbackId: string,
): Record<string, unknown> {
  let fn = call.function;
  let changed = false;
  if (!isRecord(fn)) {
    // accept { name, arguments } shorthand
    if (typeof call.name === 'string') {
      fn = { name: call.name, arguments: call.arguments ?? {} };
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
  const hasId = typeof call.id === 'string';
  if (!changed && hasId && call.type !== undefined) return call;
  return {
    ...call,
    id: hasId ? call.id : fallbackId,
    type: call.type ?? 'function',
    function: fnRecord,
  };
}

const toolNameOf = (call: Record<string, unknown>): string | undefined => {
  const fn = call.function;
  if (isRecord(fn)) return typeof fn.name === 'string' ? fn.name : undefined;
  return typeof call.name === 'string' ? call.name : undefined;
};

const emptyCall = (id: string): Record<string, unknown> => ({
  id,
  type: 'function',
  function: { name: '', arguments: {} },
});

/**
 * The flattened, indexed events of a growing trace: by kind, by tool name, tool calls by id.
 * Append-only, with rollback for speculative appends (pre-execution checks).
 * @internal
 */
export class EventStore {
  readonly events: PolicyEvent[] = [];
  traceLength = 0;
  private readonly byType: Record<PolicyEventType, number[]> = {
    Message: [],
    ToolCall: [],
    ToolOutput: [],
    Tool: [],
    Event: [],
  };
  private readonly callsByTool = new Map<string, number[]>();
  private readonly outputsByTool = new Map<string, number[]>();
  private readonly callById = new Map<string, number>();
  private lastCall = -1;
  private journal: Journal | undefined;

  /** Positions of the events of a rule type, optionally of one tool (live, sorted array). */
  candidates(type: PolicyEventType, toolName?: string): readonly number[] {
    if (toolName !== undefined && (type === 'ToolCall' || type === 'ToolOutput')) {
      const map = type === 'ToolCall' ? this.callsByTool : this.outputsByTool;
      let list = map.get(toolName);
      if (list === undefined) {
        list = [];
        map.set(toolName, list);
      }
      return list;
    }
    return this.byType[type];
  }

  /** Appends one top-level trace entry (a message, a bare tool call or a tool list). */
  append(raw: unknown): void {
    const index = this.traceLength;
    if (!isRecord(raw)) {
      throw new PolicyError({
        code: 'POLICY_INPUT',
        message: `trace entry is ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}; expected a message object, a tool call or {"tools": [...]}`,
        address: String(index),
      });
    }
    this.traceLength++;
    if (typeof raw.role === 'string') {
      if (raw.role === 'tool') {
        this.addOutput(raw, index);
        return;
      }
      const calls = raw.tool_calls;
      const hasCalls = Array.isArray(calls) && calls.length > 0;
      this.add('Message', raw, index, -1, hasCalls);
      if (hasCalls) {
        calls.forEach((call, j) => {
          this.addCall(isRecord(call) ? call : emptyCall(`call_${index}_${j}`), index, j);
        });
      }
      return;
    }
    if (Array.isArray(raw.tools)) {
      raw.tools.forEach((tool, j) => {
        const data: Record<string, unknown> = isRecord(tool) ? tool : { value: tool };
        const event = this.add('Tool', data, index, j, false);
        event.toolName = typeof data.name === 'string' ? data.name : undefined;
      });
      return;
    }
    if (typeof raw.type === 'string' || isRecord(raw.function)) {
      this.addCall(raw, index, -1);
      return;
    }
    this.traceLength--;
    throw new PolicyError({
      code: 'POLICY_INPUT',
      message:
        'trace entry has no role, type, function or tools; expected a message object, a tool call or {"tools": [...]}',
      address: String(index),
    });
  }

  /**
   * Appends a proposed tool call: into the last trace entry when it is an assistant message, else
   * as a new assistant message. Returns the call's event.
   */
  appendProposedCall(call: Record<string, unknown>): PolicyEvent {
    const lastIndex = this.traceLength - 1;
    let calls = 0;
    let message: PolicyEvent | undefined;
    for (let p = this.events.length - 1; p >= 0; p--) {
      const event = this.events[p] as PolicyEvent;
      if (event.index !== lastIndex) break;
      if (event.kind === 'ToolCall') calls++;
      else if (event.kind === 'Message') message = event;
    }
    if (message !== undefined && message.data.role === 'assistant') {
      return this.addCall(call, lastIndex, calls);
    }
    const index = this.traceLength;
    this.traceLength++;
    const normalized = normalizeToolCall(call, `call_${index}_0`);
    this.add(
      'Message',
      { role: 'assistant', content: null, tool_calls: [normalized] },
      index,
      -1,
      false,
    );
    return this.addCall(normalized, index, 0);
  }

  /** Starts recording undo information; returns the point to roll back to. */
  mark(): StoreMark {
    this.journal ??= [];
    return {
      events: this.events.length,
      traceLength: this.traceLength,
      lastCall: this.lastCall,
      journal: this.journal.length,
    };
  }

  /** Undoes every append since `mark` and stops recording. */
  rollback(mark: StoreMark): void {
    const journal = this.journal ?? [];
    for (let k = journal.length - 1; k >= mark.journal; k--) journal[k]?.();
    journal.length = mark.journal;
    if (mark.journal === 0) this.journal = undefined;
    const trim = (list: number[]): void => {
      while (list.length > 0 && (list[list.length - 1] as number) >= mark.events) list.pop();
    };
    for (const list of Object.values(this.byType)) trim(list);
    for (const list of this.callsByTool.values()) trim(list);
    for (const list of this.outputsByTool.values()) trim(list);
    this.events.length = mark.events;
    this.traceLength = mark.traceLength;
    this.lastCall = mark.lastCall;
  }

  private add(
    kind: EventKind,
    data: Record<string, unknown>,
    index: number,
    sub: number,
    pending: boolean,
  ): PolicyEvent {
    const position = this.events.length;
    const event = new PolicyEvent(position, index, kind, sub, data, pending);
    this.events.push(event);
    this.byType.Event.push(position);
    if (kind === 'Message' || kind === 'ToolOutput') this.byType.Message.push(position);
    if (kind !== 'Message') this.byType[kind].push(position);
    return event;
  }

  private addCall(call: Record<string, unknown>, index: number, sub: number): PolicyEvent {
    const event = this.add('ToolCall', call, index, sub, true);
    const name = toolNameOf(call);
    event.toolName = name;
    if (name !== undefined) (this.candidates('ToolCall', name) as number[]).push(event.position);
    const id = typeof call.id === 'string' ? call.id : event.fallbackId;
    const previous = this.callById.get(id);
    this.callById.set(id, event.position);
    if (this.journal !== undefined) {
      this.journal.push(() => {
        if (previous === undefined) this.callById.delete(id);
        else this.callById.set(id, previous);
      });
    }
    this.lastCall = event.position;
    return event;
  }

  private addOutput(raw: Record<string, unknown>, index: number): void {
    const event = this.add('ToolOutput', raw, index, -1, false);
    const id = raw.tool_call_id;
    const callPosition = typeof id === 'string' ? (this.callById.get(id) ?? -1) : this.lastCall;
    event.callPosition = callPosition;
    const call = this.events[callPosition];
    if (call !== undefined) {
      event.toolName = call.toolName;
      if (call.toolName !== undefined)
        (this.candidates('ToolOutput', call.toolName) as number[]).push(event.position);
    }
  }
}
