import { isObject } from '../formats/is-object.js';

type JsonObject = Record<string, unknown>;

/**
 * A token count or cost that `stats` cannot count: a figure that is not a non-negative JSON
 * number (`-5`, a numeric string `"12"`, `true`, a number too large for a double).
 */
export interface InvalidFigure {
  /**
   * Where in the record it is: `usage.input_tokens` (a chat event), `metadata.cost.cost_usd` (a
   * block), `result.cost` (a trace entry).
   */
  path: string;
  /** The value as read. */
  value: unknown;
  /** For a chat-event trace: the position of the event that holds it. */
  event?: number | undefined;
}

/** @internal Reports a figure that cannot be counted, by its path in the record. */
export type FigureReport = (path: string, value: unknown) => void;

/** @internal The path, in the record, of a key of the object figures are read from. */
export type PathOf = (key: string) => string;

/** @internal Token fields read for input, output and total, in the order tried. */
export const tokenKeys = {
  input: ['prompt_tokens', 'input_tokens', 'inputTokens', 'promptTokens'],
  output: ['completion_tokens', 'output_tokens', 'outputTokens', 'completionTokens'],
  total: ['total_tokens', 'totalTokens'],
} as const;

/** A cost as recorded: exact micro-USD when the record has them, else USD. */
export type Cost = { microUsd: number } | { usd: number };

/**
 * @internal The first finite number among values, for figures that are not checked (latencies).
 * @param values - candidates, in order
 * @returns the number, or undefined
 */
export function firstNumber(...values: unknown[]): number | undefined {
  for (const value of values) if (typeof value === 'number' && Number.isFinite(value)) return value;
  return undefined;
}

/**
 * @internal The first of `keys` that holder gives as a non-negative finite number; each key
 * before it that holds anything else (but `null`) is reported and not counted, so a negative
 * count never lowers a total and a numeric string is never silently read as nothing.
 * @param holder - the object read
 * @param keys - the fields tried, in order
 * @param pathOf - the path of a key in the record, for the report
 * @param report - where a figure that cannot be counted goes
 * @returns the figure, or undefined
 * @example
 * ```ts
 * figureIn({ input_tokens: '12' }, ['input_tokens'], (key) => `usage.${key}`, report); // undefined, reported
 * ```
 */
export function figureIn(
  holder: JsonObject,
  keys: readonly string[],
  pathOf: PathOf,
  report: FigureReport | undefined,
): number | undefined {
  for (const key of keys) {
    const value = holder[key];
    if (value === undefined || value === null) continue;
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
    report?.(pathOf(key), value);
  }
  return undefined;
}

/**
 * @internal A cost value as recorded: the recorder writes `{ cost_usd, cost_micro_usd,
 * pricing_source, ... }` (the integer `cost_micro_usd` is exact, so it wins); guards and tool
 * records write a number in USD.
 * @param value - the cost as read
 * @param path - its path in the record
 * @param report - where a figure that cannot be counted goes
 * @returns the cost, or undefined
 */
export function costOf(
  value: unknown,
  path: string,
  report: FigureReport | undefined,
): Cost | undefined {
  if (value === undefined || value === null) return undefined;
  if (isObject(value)) {
    const inner = (key: string) => `${path}.${key}`;
    const microUsd = figureIn(value, ['cost_micro_usd'], inner, report);
    if (microUsd !== undefined) return { microUsd };
    const usd = figureIn(
      value,
      ['cost_usd', 'total', 'total_cost', 'usd', 'amount'],
      inner,
      report,
    );
    return usd === undefined ? undefined : { usd };
  }
  const usd = figureIn({ cost: value }, ['cost'], () => path, report);
  return usd === undefined ? undefined : { usd };
}

/**
 * @internal The cost in a metadata object: its `cost` (object or number), else top-level
 * `cost_micro_usd` / `cost_usd`.
 * @param holder - the metadata
 * @param pathOf - the path of a key in the record
 * @param report - where a figure that cannot be counted goes
 * @returns the cost, or undefined
 */
export function costIn(
  holder: JsonObject,
  pathOf: PathOf,
  report: FigureReport | undefined,
): Cost | undefined {
  const cost = costOf(holder.cost, pathOf('cost'), report);
  if (cost !== undefined) return cost;
  const microUsd = figureIn(holder, ['cost_micro_usd'], pathOf, report);
  if (microUsd !== undefined) return { microUsd };
  const usd = figureIn(holder, ['cost_usd'], pathOf, report);
  return usd === undefined ? undefined : { usd };
}
