import { createPercentileSketch, type PercentileSketch } from './create-percentile-sketch.js';

/** Token and cost totals of one model. */
export interface ModelTotals {
  /** Blocks or events that reported this model. */
  calls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** USD, summed from `metadata.cost` / `cost_usd` (or a tool record's `cost`). */
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
  /** Blocks read, and by sub type. */
  blocks: number;
  blocksBySubType: Record<string, number>;
  /** Trace entries (tool-call records) read. */
  entries: number;
  toolCalls: number;
  toolCallsByTool: Record<string, number>;
  /** Tool results by status (`success`, `failure`, `timeout`, ... or `error` when only an error is recorded). */
  resultsByStatus: Record<string, number>;
  /** Tool results whose status is not `success`. */
  errors: number;
  byModel: Record<string, ModelTotals>;
  latencyByTool: Record<string, LatencySummary>;
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
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstNumber(...values: unknown[]): number | undefined {
  for (const value of values) if (typeof value === 'number' && Number.isFinite(value)) return value;
  return undefined;
}

function costOf(value: unknown): number | undefined {
  if (isObject(value)) return firstNumber(value.total, value.total_cost, value.usd, value.amount);
  return firstNumber(value);
}

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
 * Creates a statistics aggregator for `tracewarden stats`: traces, events, blocks by sub type,
 * tool calls by tool, results by status, tokens and cost by model (from `metadata.model`,
 * `metadata.usage` in OpenAI or neutral naming, `metadata.cost` / `cost_usd`, and seed 004's
 * `cost`), and latency percentiles per tool (from `execution_time_ms`, `latency_ms` or
 * `duration_ms`).
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
  const toolCallsByTool: Record<string, number> = {};
  const resultsByStatus: Record<string, number> = {};
  const byModel = new Map<string, ModelTotals>();
  const latency = new Map<string, PercentileSketch>();
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
  const addLatency = (tool: string, ms: number | undefined) => {
    if (ms === undefined) return;
    let sketch = latency.get(tool);
    if (sketch === undefined) {
      sketch = createPercentileSketch();
      latency.set(tool, sketch);
    }
    sketch.add(ms);
  };
  const modelTotals = (model: string): ModelTotals => {
    let totals = byModel.get(model);
    if (totals === undefined) {
      totals = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0 };
      byModel.set(model, totals);
    }
    return totals;
  };
  /** Usage and cost in a metadata object (or an event carrying them directly). */
  const addUsage = (holder: JsonObject, fallbackModel: string | undefined) => {
    const usage = isObject(holder.usage) ? holder.usage : undefined;
    const cost = costOf(holder.cost ?? holder.cost_usd);
    const model =
      typeof holder.model === 'string' && holder.model !== '' ? holder.model : fallbackModel;
    if (
      model === undefined ||
      (usage === undefined && cost === undefined && typeof holder.model !== 'string')
    )
      return;
    const totals = modelTotals(model);
    totals.calls++;
    if (usage !== undefined) {
      const input =
        firstNumber(
          usage.prompt_tokens,
          usage.input_tokens,
          usage.inputTokens,
          usage.promptTokens,
        ) ?? 0;
      const output =
        firstNumber(
          usage.completion_tokens,
          usage.output_tokens,
          usage.outputTokens,
          usage.completionTokens,
        ) ?? 0;
      totals.inputTokens += input;
      totals.outputTokens += output;
      totals.totalTokens += firstNumber(usage.total_tokens, usage.totalTokens) ?? input + output;
    }
    if (cost !== undefined) totals.cost += cost;
  };
  const addStatus = (metadata: JsonObject) => {
    const status =
      typeof metadata.status === 'string'
        ? metadata.status
        : metadata.error !== undefined && metadata.error !== null
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
      const list = Array.isArray(trace)
        ? trace
        : isObject(trace)
          ? Array.isArray(trace.messages)
            ? trace.messages
            : Array.isArray(trace.events)
              ? trace.events
              : []
          : [];
      const names = new Map<string, string>();
      for (const event of list) {
        events++;
        if (!isObject(event)) continue;
        const metadata = isObject(event.metadata) ? event.metadata : {};
        if (event.role !== 'tool') addUsage({ ...event, ...metadata }, undefined);
        if (Array.isArray(event.tool_calls)) {
          for (const call of event.tool_calls) {
            if (!isObject(call)) continue;
            const fn = isObject(call.function) ? call.function : {};
            const name = stringOr(fn.name, stringOr(call.name, '(unnamed)'));
            increment(toolCallsByTool, name);
            if (typeof call.id === 'string') names.set(call.id, name);
          }
        }
        if (event.role === 'tool') {
          addStatus(metadata);
          const name =
            typeof event.tool_call_id === 'string' ? names.get(event.tool_call_id) : undefined;
          addLatency(name ?? stringOr(event.name, '(unknown tool)'), durationOf(metadata));
        }
      }
    },
    addBlock(value) {
      blocks++;
      if (!isObject(value)) return;
      const traceId = stringOr(value.trace_id, '');
      blockTraceIds.add(traceId);
      const subType = stringOr(value.sub_type, '(none)');
      increment(blocksBySubType, subType);
      const payload = isObject(value.payload) ? value.payload : {};
      const metadata = isObject(value.metadata) ? value.metadata : {};
      const callId = typeof payload.call_id === 'string' ? payload.call_id : undefined;
      if (subType === 'MESSAGE') {
        addUsage(metadata, undefined);
      } else if (subType === 'TOOL_CALL') {
        const name = stringOr(payload.name, '(unnamed)');
        increment(toolCallsByTool, name);
        if (callId !== undefined) rememberCall(traceId, callId, name);
        addLatency(name, durationOf(metadata));
        addUsage(metadata, undefined);
      } else if (subType === 'TOOL_RESULT') {
        addStatus(metadata);
        const name =
          (typeof metadata.tool_name === 'string' ? metadata.tool_name : undefined) ??
          (callId === undefined ? undefined : callName(traceId, callId)) ??
          '(unknown tool)';
        // streamed deltas carry no timing of their own; count each result's timing once
        addLatency(name, durationOf(metadata));
        const cost = costOf(metadata.cost ?? metadata.cost_usd);
        if (cost !== undefined)
          addUsage({ ...metadata, model: stringOr(metadata.model, '(tools)') }, undefined);
      } else {
        addUsage(metadata, undefined);
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
      const cost = costOf(result.cost);
      const callMetadata = isObject(call.metadata) ? call.metadata : {};
      if (cost !== undefined) {
        const totals = modelTotals(stringOr(callMetadata.model, '(tools)'));
        totals.calls++;
        totals.cost += cost;
      }
    },
    summary() {
      const latencyByTool: Record<string, LatencySummary> = {};
      for (const [tool, sketch] of [...latency.entries()].sort(([a], [b]) => a.localeCompare(b))) {
        if (sketch.count === 0) continue;
        latencyByTool[tool] = {
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
      const sorted = (record: Record<string, number>) =>
        Object.fromEntries(
          Object.entries(record).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)),
        );
      const toolCalls = Object.values(toolCallsByTool).reduce((sum, count) => sum + count, 0);
      const errors = Object.entries(resultsByStatus).reduce(
        (sum, [status, count]) => (status === 'success' ? sum : sum + count),
        0,
      );
      return {
        files,
        traces: eventTraces + blockTraceIds.size + sessions.size,
        events,
        blocks,
        blocksBySubType: sorted(blocksBySubType),
        entries,
        toolCalls,
        toolCallsByTool: sorted(toolCallsByTool),
        resultsByStatus: sorted(resultsByStatus),
        errors,
        byModel: Object.fromEntries([...byModel.entries()].sort(([a], [b]) => a.localeCompare(b))),
        latencyByTool,
      };
    },
  };
}
