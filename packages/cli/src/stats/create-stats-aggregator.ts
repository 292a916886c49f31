import { safeParseTrace } from '@tracewarden/core';
import { isObject } from '../formats/is-object.js';
import { unknownSubTypeOf } from '../traces/unknown-sub-type.js';
import { eventMetadata, eventPathOf, lastEventOfEachMessage } from './chat-event-fields.js';
import { createPercentileSketch, type PercentileSketch } from './create-percentile-sketch.js';
import {
  type Cost,
  costIn,
  costOf,
  type FigureReport,
  figureIn,
  firstNumber,
  type InvalidFigure,
  type PathOf,
  tokenKeys,
} from './read-figures.js';

/** Unknown sub types listed one by one; a file of random ones must not grow memory. */
const maxUnknownSubTypes = 100;

/** Token and cost totals of one model. */
export interface ModelTotals {
  /** Blocks or events that reported this model. */
  calls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /**
   * USD: the recorder's `metadata.cost` object (its exact `cost_micro_usd`, else `cost_usd`), a
   * guard's `cost` number (USD) on a tool result, or a tool record's `result.cost`.
   */
  cost: number;
}

/** Latency percentiles of one tool, in milliseconds. */
export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
}

/** The `stats` report. */
export interface TraceStats {
  files: number;
  traces: number;
  /** Chat events read (chat-event traces). */
  events: number;
  /** Blocks read (those of an unknown sub type included), and by sub type. */
  blocks: number;
  blocksBySubType: Record<string, number>;
  /**
   * Blocks whose `sub_type` is not one of seed 002's (a misspelt `TOOL_CALLL`), by that value:
   * counted here, not in `blocksBySubType`, and left out of every other figure. At most 100
   * values are listed; blocks of further ones are counted under `(others)`.
   */
  blocksByUnknownSubType: Record<string, number>;
  /** Trace entries (tool-call records) read. */
  entries: number;
  toolCalls: number;
  toolCallsByTool: Record<string, number>;
  /** Tool calls a policy blocked (a TOOL_CALL block whose `metadata.policy` is `block`). */
  blockedToolCalls: number;
  /** Tool results by status (`success`, `failure`, `timeout`, ... or `error` when only an error is recorded). */
  resultsByStatus: Record<string, number>;
  /**
   * Model calls by status: the assistant message's `metadata.status` as the adapters record it
   * (`success`, `failure`, `cancelled`, `timeout`, `budget_exceeded`, `rate_limited`, `circuit_open`).
   */
  modelCallsByStatus: Record<string, number>;
  /** Tool results whose status is not `success`. */
  toolErrors: number;
  /** Model calls whose status is not `success`. */
  modelErrors: number;
  /** `toolErrors + modelErrors`. */
  errors: number;
  byModel: Record<string, ModelTotals>;
  latencyByTool: Record<string, LatencySummary>;
  /** Model-call latency per model, from the assistant message's `metadata.latency_ms`. */
  latencyByModel: Record<string, LatencySummary>;
}

/** Accumulates statistics one record at a time, in bounded memory. */
export interface StatsAggregator {
  /** Counts a file. */
  addFile(): void;
  /** Adds one chat-event trace (as read: an array of events or `{ messages }`). */
  addTrace(trace: unknown): void;
  /** Adds one block (as read). */
  addBlock(block: unknown): void;
  /** Adds one trace entry (as read). */
  addEntry(entry: unknown): void;
  /** The statistics so far. */
  summary(): TraceStats;
}

/** Options of {@link createStatsAggregator}. */
export interface StatsAggregatorOptions {
  /** Traces whose tool-call ids are remembered, to name the tool of a later result. @default 1024 */
  maxRememberedTraces?: number;
  /**
   * A token count or cost that is not a non-negative JSON number (`-5`, `"12"`): it is left out
   * of the totals, and reported here (`stats` warns `INVALID_FIGURE` and exits 1).
   */
  onInvalidFigure?: ((found: InvalidFigure) => void) | undefined;
}

type JsonObject = Record<string, unknown>;

const blockPathOf: PathOf = (key) => `metadata.${key}`;

function durationOf(metadata: JsonObject): number | undefined {
  return firstNumber(metadata.execution_time_ms, metadata.latency_ms, metadata.duration_ms);
}

function increment(record: Record<string, number>, key: string, by = 1): void {
  record[key] = (record[key] ?? 0) + by;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

/**
 * Whether a tool output's chat event carried an error of its own (AgentDojo's run files:
 * `"content": "", "error": "ValidationError: ..."`; Inspect AI's logs: `"error": { "type",
 * "message" }`; `eventsToBlocks` keeps the event's fields in `metadata.chat_event`).
 */
function hasOwnError(event: unknown): boolean {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return false;
  const error = (event as JsonObject).error;
  // tau2-bench's tool messages: `error: true`
  if (error === true) return true;
  if (typeof error === 'object' && error !== null && !Array.isArray(error))
    return typeof (error as JsonObject).message === 'string';
  return typeof error === 'string' && error !== '';
}

/**
 * Creates a statistics aggregator for `tracewarden stats`: traces, events, blocks by sub type,
 * tool calls by tool, tool results by status, model calls by status (an assistant message's
 * `metadata.status`), tokens and cost by model (from `metadata.model`, `metadata.usage` in OpenAI
 * or neutral naming, the recorder's `metadata.cost` object, a guard's `cost` in USD and seed 004's
 * `cost`), latency percentiles per tool (from `execution_time_ms`, `latency_ms` or
 * `duration_ms`) and per model (`metadata.latency_ms`).
 *
 * Memory is bounded whatever the input size: latencies go into one
 * {@link createPercentileSketch} per tool (a log histogram, 1% relative accuracy), results are
 * matched to their call's tool through a bounded map of recent call ids, and only distinct
 * trace ids are remembered (to count traces).
 *
 * @param options - how many traces' call ids to remember
 * @returns an empty aggregator
 * @example
 * ```ts
 * const stats = createStatsAggregator();
 * stats.addBlock(block);
 * stats.summary().toolCallsByTool; // { get_weather: 1 }
 * ```
 */
export function createStatsAggregator(options: StatsAggregatorOptions = {}): StatsAggregator {
  const maxRememberedTraces = options.maxRememberedTraces ?? 1024;
  let files = 0;
  let events = 0;
  let blocks = 0;
  let entries = 0;
  let eventTraces = 0;
  const blockTraceIds = new Set<string>();
  const sessions = new Set<string>();
  const blocksBySubType: Record<string, number> = {};
  // a Map: an unknown value may be any string, `__proto__` included
  const blocksByUnknownSubType = new Map<string, number>();
  const toolCallsByTool: Record<string, number> = {};
  const resultsByStatus: Record<string, number> = {};
  let blockedToolCalls = 0;
  const modelCallsByStatus: Record<string, number> = {};
  // Micro-USD summed apart (integers, exact) from USD amounts; joined in summary().
  const byModel = new Map<string, ModelTotals & { microUsd: number }>();
  const latency = new Map<string, PercentileSketch>();
  const modelLatency = new Map<string, PercentileSketch>();
  // Call names per trace, in two generations of traces (bounded without evicting one key at a
  // time, which scans a Map's deleted slots and turns quadratic on millions of calls).
  let recentTraces = new Map<string, Map<string, string>>();
  let olderTraces = new Map<string, Map<string, string>>();
  const tracesPerGeneration = Math.max(1, Math.floor(maxRememberedTraces / 2));
  const rememberCall = (traceId: string, callId: string, name: string) => {
    let calls = recentTraces.get(traceId);
    if (calls === undefined) {
      calls = olderTraces.get(traceId) ?? new Map<string, string>();
      if (recentTraces.size >= tracesPerGeneration) {
        olderTraces = recentTraces;
        recentTraces = new Map();
      }
      recentTraces.set(traceId, calls);
    }
    calls.set(callId, name);
  };
  const callName = (traceId: string, callId: string) =>
    (recentTraces.get(traceId) ?? olderTraces.get(traceId))?.get(callId);
  const addSample = (
    sketches: Map<string, PercentileSketch>,
    key: string,
    ms: number | undefined,
  ) => {
    if (ms === undefined) return;
    let sketch = sketches.get(key);
    if (sketch === undefined) {
      sketch = createPercentileSketch();
      sketches.set(key, sketch);
    }
    sketch.add(ms);
  };
  const addLatency = (tool: string, ms: number | undefined) => addSample(latency, tool, ms);
  const modelTotals = (model: string) => {
    let totals = byModel.get(model);
    if (totals === undefined) {
      totals = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0, microUsd: 0 };
      byModel.set(model, totals);
    }
    return totals;
  };
  const addCost = (totals: { cost: number; microUsd: number }, cost: Cost) => {
    if ('microUsd' in cost) totals.microUsd += cost.microUsd;
    else totals.cost += cost.usd;
  };
  // the event being read, for reports of a chat-event trace's figures
  let currentEvent: number | undefined;
  const report: FigureReport | undefined =
    options.onInvalidFigure === undefined
      ? undefined
      : (path, value) => options.onInvalidFigure?.({ path, value, event: currentEvent });
  /**
   * Usage and cost in a metadata object (or an event carrying them directly); `costOnly` for a
   * tool record, whose usage counts only beside a cost.
   */
  const addUsage = (holder: JsonObject, pathOf: PathOf, costOnly = false) => {
    const usage = isObject(holder.usage) ? holder.usage : undefined;
    const cost = costIn(holder, pathOf, report);
    if (costOnly && cost === undefined) return;
    const model =
      typeof holder.model === 'string' && holder.model !== ''
        ? holder.model
        : typeof holder.request_model === 'string' && holder.request_model !== ''
          ? holder.request_model
          : undefined;
    if (
      model === undefined ||
      (usage === undefined && cost === undefined && typeof holder.model !== 'string')
    )
      return;
    const totals = modelTotals(model);
    totals.calls++;
    if (usage !== undefined) {
      const usagePath = (key: string) => `${pathOf('usage')}.${key}`;
      const input = figureIn(usage, tokenKeys.input, usagePath, report) ?? 0;
      const output = figureIn(usage, tokenKeys.output, usagePath, report) ?? 0;
      totals.inputTokens += input;
      totals.outputTokens += output;
      totals.totalTokens += figureIn(usage, tokenKeys.total, usagePath, report) ?? input + output;
    }
    if (cost !== undefined) addCost(totals, cost);
  };
  /** A model call's status and latency, from an assistant message's metadata. */
  const addModelCall = (metadata: JsonObject) => {
    if (typeof metadata.status === 'string') increment(modelCallsByStatus, metadata.status);
    const model = stringOr(metadata.model, stringOr(metadata.request_model, ''));
    if (model !== '')
      addSample(modelLatency, model, firstNumber(metadata.latency_ms, metadata.duration_ms));
  };
  /** A tool result's status; `chatEvent` is its chat event (whose own `error` AgentDojo sets). */
  const addStatus = (metadata: JsonObject, chatEvent: unknown = metadata.chat_event) => {
    const status =
      typeof metadata.status === 'string'
        ? metadata.status
        : (metadata.error !== undefined && metadata.error !== null) || hasOwnError(chatEvent)
          ? 'error'
          : undefined;
    if (status !== undefined) increment(resultsByStatus, status);
  };

  return {
    addFile() {
      files++;
    },
    addTrace(trace) {
      eventTraces++;
      // parsed, calls in every shape parseTrace reads (AgentDojo's, legacy function_call) have
      // their names, and outputs without ids their calls; a trace it rejects is counted as read
      const parsed = safeParseTrace(trace);
      const list: readonly unknown[] = parsed.success
        ? parsed.trace
        : Array.isArray(trace)
          ? trace
          : isObject(trace)
            ? Array.isArray(trace.messages)
              ? trace.messages
              : Array.isArray(trace.events)
                ? trace.events
                : []
            : [];
      const names = new Map<string, string>();
      const lastOfMessage = lastEventOfEachMessage(list);
      for (let index = 0; index < list.length; index++) {
        const event = list[index];
        events++;
        if (!isObject(event)) continue;
        currentEvent = index;
        const metadata = eventMetadata(event);
        const pathOf = eventPathOf(event);
        // an API message written as several events (one per content block) is one model call
        const last = typeof event.id === 'string' ? lastOfMessage.get(event.id) : undefined;
        const repeated = last !== undefined && last !== index;
        if (event.role !== 'tool' && !repeated) addUsage({ ...event, ...metadata }, pathOf);
        if (event.role === 'assistant' && !repeated) addModelCall(metadata);
        if (Array.isArray(event.tool_calls)) {
          for (const call of event.tool_calls) {
            if (!isObject(call)) continue;
            const fn = isObject(call.function) ? call.function : {};
            const name = stringOr(fn.name, stringOr(call.name, '(unnamed)'));
            increment(toolCallsByTool, name);
            if (eventMetadata(call).policy === 'block') blockedToolCalls++;
            if (typeof call.id === 'string') names.set(call.id, name);
          }
        }
        if (event.role === 'tool') {
          // as for TOOL_RESULT blocks: a refusal is not a failed tool call, a guard's cost counts
          if (metadata.refused !== true) addStatus(metadata, event);
          const name =
            (typeof metadata.tool_name === 'string' ? metadata.tool_name : undefined) ??
            (typeof event.tool_call_id === 'string' ? names.get(event.tool_call_id) : undefined);
          addLatency(name ?? stringOr(event.name, '(unknown tool)'), durationOf(metadata));
          addUsage({ ...metadata, model: stringOr(metadata.model, '(tools)') }, pathOf, true);
        }
      }
      currentEvent = undefined;
    },
    addBlock(value) {
      blocks++;
      if (!isObject(value)) return;
      const traceId = stringOr(value.trace_id, '');
      blockTraceIds.add(traceId);
      const unknown = unknownSubTypeOf(value);
      if (unknown !== undefined) {
        // what the block means is unknown: counted as such, and in no other figure
        const key =
          blocksByUnknownSubType.has(unknown) || blocksByUnknownSubType.size < maxUnknownSubTypes
            ? unknown
            : '(others)';
        blocksByUnknownSubType.set(key, (blocksByUnknownSubType.get(key) ?? 0) + 1);
        return;
      }
      const subType = stringOr(value.sub_type, '(none)');
      increment(blocksBySubType, subType);
      const payload = isObject(value.payload) ? value.payload : {};
      const metadata = isObject(value.metadata) ? value.metadata : {};
      const callId = typeof payload.call_id === 'string' ? payload.call_id : undefined;
      if (subType === 'MESSAGE') {
        addUsage(metadata, blockPathOf);
        if (payload.role === 'assistant') addModelCall(metadata);
      } else if (subType === 'TOOL_CALL') {
        const name = stringOr(payload.name, '(unnamed)');
        increment(toolCallsByTool, name);
        if (metadata.policy === 'block') blockedToolCalls++;
        if (callId !== undefined) rememberCall(traceId, callId, name);
        addLatency(name, durationOf(metadata));
        addUsage(metadata, blockPathOf);
      } else if (subType === 'TOOL_RESULT') {
        // a refusal (refuse mode) is the result of a call the policy blocked: the tool never
        // ran, and the call is already counted as blocked, not as a failed tool call
        if (metadata.refused !== true) addStatus(metadata);
        const name =
          (typeof metadata.tool_name === 'string' ? metadata.tool_name : undefined) ??
          (callId === undefined ? undefined : callName(traceId, callId)) ??
          '(unknown tool)';
        // streamed deltas carry no timing of their own; count each result's timing once
        addLatency(name, durationOf(metadata));
        addUsage({ ...metadata, model: stringOr(metadata.model, '(tools)') }, blockPathOf, true);
      } else {
        addUsage(metadata, blockPathOf);
      }
    },
    addEntry(value) {
      entries++;
      if (!isObject(value) || !isObject(value.call) || !isObject(value.result)) return;
      const { call, result } = value;
      sessions.add(stringOr(call.session_id, ''));
      const name = stringOr(call.tool_name, '(unnamed)');
      increment(toolCallsByTool, name);
      if (typeof result.status === 'string') increment(resultsByStatus, result.status);
      addLatency(name, firstNumber(result.execution_time_ms));
      const cost = costOf(result.cost, 'result.cost', report);
      const callMetadata = isObject(call.metadata) ? call.metadata : {};
      if (cost !== undefined) {
        const totals = modelTotals(stringOr(callMetadata.model, '(tools)'));
        totals.calls++;
        addCost(totals, cost);
      }
    },
    summary() {
      const summarize = (sketches: Map<string, PercentileSketch>) => {
        const out: Record<string, LatencySummary> = {};
        for (const [key, sketch] of [...sketches.entries()].sort(([a], [b]) =>
          a.localeCompare(b),
        )) {
          if (sketch.count === 0) continue;
          out[key] = {
            count: sketch.count,
            mean: sketch.sum / sketch.count,
            p50: sketch.quantile(0.5) ?? 0,
            p90: sketch.quantile(0.9) ?? 0,
            p95: sketch.quantile(0.95) ?? 0,
            p99: sketch.quantile(0.99) ?? 0,
            min: sketch.min ?? 0,
            max: sketch.max ?? 0,
          };
        }
        return out;
      };
      const sorted = (record: Record<string, number>) =>
        Object.fromEntries(
          Object.entries(record).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)),
        );
      const toolCalls = Object.values(toolCallsByTool).reduce((sum, count) => sum + count, 0);
      const failures = (record: Record<string, number>) =>
        Object.entries(record).reduce(
          (sum, [status, count]) => (status === 'success' ? sum : sum + count),
          0,
        );
      const toolErrors = failures(resultsByStatus);
      const modelErrors = failures(modelCallsByStatus);
      return {
        files,
        traces: eventTraces + blockTraceIds.size + sessions.size,
        events,
        blocks,
        blocksBySubType: sorted(blocksBySubType),
        blocksByUnknownSubType: sorted(Object.fromEntries(blocksByUnknownSubType)),
        entries,
        toolCalls,
        toolCallsByTool: sorted(toolCallsByTool),
        blockedToolCalls,
        resultsByStatus: sorted(resultsByStatus),
        modelCallsByStatus: sorted(modelCallsByStatus),
        toolErrors,
        modelErrors,
        errors: toolErrors + modelErrors,
        byModel: Object.fromEntries(
          [...byModel.entries()]
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([model, { microUsd, ...totals }]): [string, ModelTotals] => [
              model,
              // micro-USD are exact integers: divide once, then add any USD amounts
              { ...totals, cost: microUsd === 0 ? totals.cost : microUsd / 1e6 + totals.cost },
            ]),
        ),
        latencyByTool: summarize(latency),
        latencyByModel: summarize(modelLatency),
      };
    },
  };
}
