import { legacyFunctionCalls, legacyFunctionRole } from '../../model/legacy-function-call.js';
import { PolicyError } from '../policy-error.js';
import type { PolicyEventType } from '../policy-types.js';
import { isRecord } from './is-record.js';
import {
  callIdText,
  type EventKind,
  emptyCall,
  fallbackId,
  normalizeToolCall,
  PolicyEvent,
  toolNameOf,
} from './policy-event.js';

/** Event kinds as stored in the store's kind column. */
const KIND_CODES: readonly EventKind[] = ['Message', 'ToolCall', 'ToolOutput', 'Tool'];
const MESSAGE = 0;
const TOOL_CALL = 1;
const TOOL_OUTPUT = 2;
const TOOL = 3;
/** Flag in the kind column: the event's data still needs normalising. */
const PENDING = 4;

/** @internal A rollback point of an {@link EventStore}. */
export interface StoreMark {
  events: number;
  traceLength: number;
  lastCall: number;
  /** Calls answered so far (the length of the answer log). */
  answers: number;
  /** Ids answered so far (the length of the answered-id log). */
  answeredIds: number;
}

/**
 * The calls of one message, by position, with a cursor past those whose ids are answered: the
 * unit of decision 002's order rule (as `CallTurn` is for `parseTrace`).
 */
interface CallPositions {
  /** The trace entry (message) the calls belong to. */
  index: number;
  positions: number[];
  next: number;
}

/** How far back from the latest call a tool output's `tool_call_id` is looked up directly. */
const RECENT_CALLS = 16;

/**
 * How many earlier calls of one message are looked at for an unanswered call sharing an output's
 * `tool_call_id` (parallel calls numbered per answer, `call_0` twice): past that, the latest call
 * with the id is taken.
 */
const SIBLING_CALLS = 128;

const TYPE_KINDS: Record<PolicyEventType, (kind: number) => boolean> = {
  Message: (kind) => kind === MESSAGE || kind === TOOL_OUTPUT,
  ToolCall: (kind) => kind === TOOL_CALL,
  ToolOutput: (kind) => kind === TOOL_OUTPUT,
  Tool: (kind) => kind === TOOL,
  Event: () => true,
};

/** A position list of one event type, filled up to the store's size when asked for. */
interface TypeList {
  positions: number[];
  /** Positions below this have been scanned. */
  scanned: number;
}

/**
 * The flattened, indexed events of a growing trace: by kind, by tool name, tool calls by id.
 * Events are stored as columns (typed arrays for kind, entry index, sub-index and linked call,
 * plus the trace's own objects), never copied; {@link PolicyEvent} objects are built on demand,
 * and the per-type position lists when a rule first asks for them.
 * Append-only, with rollback for speculative appends (pre-execution checks).
 * @internal
 */
export class EventStore {
  /** Number of flattened events. */
  size = 0;
  traceLength = 0;
  private capacity = 256;
  /** Per position: kind code, plus {@link PENDING}. */
  private kinds = new Uint8Array(this.capacity);
  private indexes = new Int32Array(this.capacity);
  private subs = new Int32Array(this.capacity);
  /** Per position: the linked call of a tool output, else -1. */
  private calls = new Int32Array(this.capacity);
  /** Per position: the trace's object, or the event built from it. */
  private readonly items: (Record<string, unknown> | PolicyEvent)[] = [];
  private readonly byType: Record<PolicyEventType, TypeList> = {
    Message: { positions: [], scanned: 0 },
    ToolCall: { positions: [], scanned: 0 },
    ToolOutput: { positions: [], scanned: 0 },
    Tool: { positions: [], scanned: 0 },
    Event: { positions: [], scanned: 0 },
  };
  private readonly callsByTool = new Map<string, number[]>();
  private readonly outputsByTool = new Map<string, number[]>();
  /** Latest call per id, built lazily for outputs that answer an older call. */
  private readonly callById = new Map<string, number>();
  /** Calls below this position are in `callById`. */
  private callsIndexed = 0;
  private lastCall = -1;
  /** Per position: 1 once a tool output answered the call there. */
  private answered = new Uint8Array(this.capacity);
  /** The call positions answered, in order (rollback unmarks those past a mark). */
  private readonly answerLog: number[] = [];
  /**
   * The call ids outputs named or were linked to (decision 002's "answered", by id as
   * `parseTrace` keeps it), and the order they were added in (for rollback).
   */
  private readonly answeredIds = new Set<string>();
  private readonly answeredIdLog: string[] = [];
  /** Messages whose calls may still be unanswered, most recent last (decision 002). */
  private readonly turns: CallPositions[] = [];

  /** Positions of the events of a rule type, optionally of one tool (live, sorted array). */
  candidates(type: PolicyEventType, toolName?: string): readonly number[] {
    if (toolName !== undefined && (type === 'ToolCall' || type === 'ToolOutput')) {
      return this.toolList(type === 'ToolCall' ? this.callsByTool : this.outputsByTool, toolName);
    }
    return this.typeList(type);
  }

  private typeList(type: PolicyEventType): number[] {
    const list = this.byType[type];
    const positions = list.positions;
    const size = this.size;
    if (list.scanned < size) {
      if (type === 'Event') for (let p = list.scanned; p < size; p++) positions.push(p);
      else {
        const test = TYPE_KINDS[type];
        const kinds = this.kinds;
        for (let p = list.scanned; p < size; p++)
          if (test((kinds[p] as number) & 3)) positions.push(p);
      }
      list.scanned = size;
    }
    return positions;
  }

  /** The event at a position (built once, then cached). */
  event(position: number): PolicyEvent {
    const item = this.items[position] as Record<string, unknown> | PolicyEvent;
    if (item instanceof PolicyEvent) return item;
    const event = this.build(position, item);
    this.items[position] = event;
    return event;
  }

  /**
   * The event at a position for a one-off look (filters): the cached event when there is one,
   * else a fresh one that is not kept, so events that fail their filters leave nothing behind.
   */
  probe(position: number): PolicyEvent {
    const item = this.items[position] as Record<string, unknown> | PolicyEvent;
    return item instanceof PolicyEvent ? item : this.build(position, item);
  }

  private build(position: number, raw: Record<string, unknown>): PolicyEvent {
    const code = this.kinds[position] as number;
    const kind = code & 3;
    const call = this.calls[position] as number;
    return new PolicyEvent(
      position,
      this.indexes[position] as number,
      KIND_CODES[kind] as EventKind,
      this.subs[position] as number,
      raw,
      (code & PENDING) !== 0,
      call,
      kind === TOOL_OUTPUT
        ? call < 0
          ? undefined
          : this.nameOf(call)
        : kind === TOOL
          ? typeof raw.name === 'string'
            ? raw.name
            : undefined
          : kind === TOOL_CALL
            ? toolNameOf(raw)
            : undefined,
    );
  }

  /** Name of the call at a position (as found when it was appended). */
  private nameOf(position: number): string | undefined {
    const item = this.items[position] as Record<string, unknown> | PolicyEvent;
    return item instanceof PolicyEvent ? item.toolName : toolNameOf(item);
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
    if (typeof raw.role === 'string') {
      this.traceLength++;
      // OpenAI's legacy function calling (2023) as `parseTrace` reads it: a `function` message
      // answers the latest call, an assistant's `function_call` is its one tool call
      if (
        raw.role === 'tool' ||
        (raw.role === legacyFunctionRole &&
          (this.lastCall >= 0 || callIdText(raw.tool_call_id) !== undefined))
      ) {
        this.addOutput(raw, index);
        return;
      }
      const calls = legacyFunctionCalls(raw) ?? raw.tool_calls;
      const hasCalls = Array.isArray(calls) && calls.length > 0;
      this.add(hasCalls ? MESSAGE | PENDING : MESSAGE, raw, index, -1, -1);
      if (hasCalls) {
        for (let j = 0; j < calls.length; j++) {
          const call: unknown = calls[j];
          this.addCall(isRecord(call) ? call : emptyCall(`call_${index}_${j}`), index, j);
        }
      }
      return;
    }
    if (Array.isArray(raw.tools)) {
      this.traceLength++;
      raw.tools.forEach((tool, j) => {
        this.add(TOOL, isRecord(tool) ? tool : { value: tool }, index, j, -1);
      });
      return;
    }
    if (typeof raw.type === 'string' || isRecord(raw.function)) {
      this.traceLength++;
      this.addCall(raw, index, -1);
      return;
    }
    // trace blocks (a tracer's `blocks()`, a JSONL file of blocks) are the likely mistake
    const isBlock = typeof raw.sub_type === 'string' && isRecord(raw.payload);
    throw new PolicyError({
      code: 'POLICY_INPUT',
      message: isBlock
        ? 'trace entry is a trace block (it has sub_type and payload); a policy checks chat events: convert blocks first, e.g. policy.check(blocksToEvents(tracer.blocks()))'
        : 'trace entry has no role, type, function or tools; expected a message object, a tool call or {"tools": [...]}',
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
    let message = -1;
    for (let p = this.size - 1; p >= 0; p--) {
      if (this.indexes[p] !== lastIndex) break;
      const kind = (this.kinds[p] as number) & 3;
      if (kind === TOOL_CALL) calls++;
      else if (kind === MESSAGE) message = p;
    }
    if (message >= 0 && this.event(message).data.role === 'assistant') {
      return this.event(this.addCall(call, lastIndex, calls));
    }
    const index = this.traceLength;
    this.traceLength++;
    const normalized = normalizeToolCall(call, `call_${index}_0`);
    this.add(
      MESSAGE,
      { role: 'assistant', content: null, tool_calls: [normalized] },
      index,
      -1,
      -1,
    );
    return this.event(this.addCall(normalized, index, 0));
  }

  /** Returns the point to roll back to. */
  mark(): StoreMark {
    return {
      events: this.size,
      traceLength: this.traceLength,
      lastCall: this.lastCall,
      answers: this.answerLog.length,
      answeredIds: this.answeredIdLog.length,
    };
  }

  /** Undoes every append since `mark`. */
  rollback(mark: StoreMark): void {
    const n = mark.events;
    const trim = (list: number[]): void => {
      while (list.length > 0 && (list[list.length - 1] as number) >= n) list.pop();
    };
    for (const list of Object.values(this.byType)) {
      trim(list.positions);
      list.scanned = Math.min(list.scanned, n);
    }
    for (const list of this.callsByTool.values()) trim(list);
    for (const list of this.outputsByTool.values()) trim(list);
    if (this.callsIndexed > n) {
      // calls past the mark were indexed by id: rebuild that index lazily
      this.callById.clear();
      this.callsIndexed = 0;
    }
    this.items.length = n;
    this.size = n;
    this.traceLength = mark.traceLength;
    this.lastCall = mark.lastCall;
    const log = this.answerLog;
    const idLog = this.answeredIdLog;
    if (log.length > mark.answers || idLog.length > mark.answeredIds) {
      // outputs past the mark answered calls: unmark them, and find the turns' cursors anew
      // (every call answered before the mark is below it: no flag is left past the store's size)
      while (log.length > mark.answers) this.answered[log.pop() as number] = 0;
      while (idLog.length > mark.answeredIds) this.answeredIds.delete(idLog.pop() as string);
      this.rebuildTurns();
    } else {
      const turns = this.turns;
      for (let t = turns.length - 1; t >= 0; t--) {
        const turn = turns[t] as CallPositions;
        trim(turn.positions);
        if (turn.positions.length > 0) break;
        turns.pop();
      }
    }
  }

  /** The turns of decision 002's order rule, from the calls below the store's size. */
  private rebuildTurns(): void {
    const turns = this.turns;
    turns.length = 0;
    const kinds = this.kinds;
    for (let p = 0; p < this.size; p++) {
      if (((kinds[p] as number) & 3) !== TOOL_CALL) continue;
      const index = this.indexes[p] as number;
      const last = turns[turns.length - 1];
      if (last !== undefined && last.index === index) last.positions.push(p);
      else turns.push({ index, positions: [p], next: 0 });
    }
  }

  private toolList(map: Map<string, number[]>, name: string): number[] {
    let list = map.get(name);
    if (list === undefined) {
      list = [];
      map.set(name, list);
    }
    return list;
  }

  /** Makes room for at least `events` more events (a hint; the store grows as needed). */
  reserve(events: number): void {
    while (this.capacity < this.size + events) this.grow();
  }

  private grow(): void {
    const capacity = this.capacity * 2;
    const kinds = new Uint8Array(capacity);
    kinds.set(this.kinds);
    this.kinds = kinds;
    const indexes = new Int32Array(capacity);
    indexes.set(this.indexes);
    this.indexes = indexes;
    const subs = new Int32Array(capacity);
    subs.set(this.subs);
    this.subs = subs;
    const calls = new Int32Array(capacity);
    calls.set(this.calls);
    this.calls = calls;
    const answered = new Uint8Array(capacity);
    answered.set(this.answered);
    this.answered = answered;
    this.capacity = capacity;
  }

  private add(
    code: number,
    data: Record<string, unknown>,
    index: number,
    sub: number,
    call: number,
  ): number {
    const position = this.size;
    if (position === this.capacity) this.grow();
    this.kinds[position] = code;
    this.indexes[position] = index;
    this.subs[position] = sub;
    this.calls[position] = call;
    this.items.push(data);
    this.size = position + 1;
    return position;
  }

  private addCall(call: Record<string, unknown>, index: number, sub: number): number {
    const position = this.add(TOOL_CALL | PENDING, call, index, sub, -1);
    const name = toolNameOf(call);
    if (name !== undefined) this.toolList(this.callsByTool, name).push(position);
    this.lastCall = position;
    const turns = this.turns;
    const turn = turns[turns.length - 1];
    if (turn !== undefined && turn.index === index) turn.positions.push(position);
    else turns.push({ index, positions: [position], next: 0 });
    return position;
  }

  /** The id a call is found by: its own, or the deterministic fallback. */
  private callId(position: number): string {
    const item = this.items[position] as Record<string, unknown> | PolicyEvent;
    const raw = item instanceof PolicyEvent ? item.data : item;
    return (
      callIdText(raw.id) ??
      fallbackId(this.indexes[position] as number, this.subs[position] as number)
    );
  }

  /**
   * The call an output naming `id` answers: among the calls with that id of the latest message
   * that has one, the first not yet answered (parallel calls sharing an id are answered in their
   * order, as `eventsToBlocks` links them; decision 002), else the last of them; -1 if none.
   */
  private findCall(id: string): number {
    const latest = this.latestCall(id);
    return latest < 0 ? latest : this.firstUnansweredSibling(latest, id);
  }

  /**
   * The first unanswered call with `id` among `latest`'s message's calls up to it, else
   * `latest`. Looks back over at most {@link SIBLING_CALLS} calls of the message, so that a
   * message of thousands of calls costs each output a bounded walk.
   */
  private firstUnansweredSibling(latest: number, id: string): number {
    const index = this.indexes[latest];
    let first = this.answered[latest] === 0 ? latest : -1;
    for (let p = latest - 1; p >= 0 && p >= latest - SIBLING_CALLS; p--) {
      if (((this.kinds[p] as number) & 3) !== TOOL_CALL || this.indexes[p] !== index) break;
      if (this.answered[p] === 0 && this.callId(p) === id) first = p;
    }
    return first < 0 ? latest : first;
  }

  /** Position of the latest call with this id, or -1. */
  private latestCall(id: string): number {
    // usually the output answers one of the latest calls: look there before indexing every call
    const last = this.lastCall;
    if (last < 0) return -1;
    const index = this.indexes[last];
    for (let p = last; p >= 0 && p > last - RECENT_CALLS; p--) {
      if (((this.kinds[p] as number) & 3) !== TOOL_CALL || this.indexes[p] !== index) break;
      if (this.callId(p) === id) return p;
    }
    const kinds = this.kinds;
    for (let p = this.callsIndexed; p < this.size; p++) {
      if (((kinds[p] as number) & 3) === TOOL_CALL) this.callById.set(this.callId(p), p);
    }
    this.callsIndexed = this.size;
    return this.callById.get(id) ?? -1;
  }

  /**
   * Decision 002's order rule for an output without a call id, as `parseTrace` applies it: the
   * id of the first call of the latest message with one whose id no output has named yet, else
   * the most recent call's id, else `undefined`.
   */
  private orderRuleId(): string | undefined {
    const turns = this.turns;
    const answered = this.answeredIds;
    while (turns.length > 0) {
      const turn = turns[turns.length - 1] as CallPositions;
      const positions = turn.positions;
      while (turn.next < positions.length) {
        const id = this.callId(positions[turn.next] as number);
        if (!answered.has(id)) return id;
        turn.next++;
      }
      turns.pop();
    }
    return this.lastCall < 0 ? undefined : this.callId(this.lastCall);
  }

  /**
   * Links a tool output to its call as the CLI and the converters do (`parseTrace`, then
   * `eventsToBlocks`): an output without an id (absent, `null` or `""`) takes decision 002's
   * order rule's id; an id resolves to a call of the latest message that has one, the first
   * not yet answered (parallel calls sharing an id in their order), else the last.
   */
  private addOutput(raw: Record<string, unknown>, index: number): void {
    const id = callIdText(raw.tool_call_id) ?? this.orderRuleId();
    const callPosition = id === undefined ? -1 : this.findCall(id);
    const position = this.add(TOOL_OUTPUT, raw, index, -1, callPosition);
    if (id !== undefined && !this.answeredIds.has(id)) {
      this.answeredIds.add(id);
      this.answeredIdLog.push(id);
    }
    if (callPosition >= 0) {
      if (this.answered[callPosition] === 0) {
        this.answered[callPosition] = 1;
        this.answerLog.push(callPosition);
      }
      const name = this.nameOf(callPosition);
      if (name !== undefined) this.toolList(this.outputsByTool, name).push(position);
    }
  }
}
