import { traceEventKeys } from '@tracewarden/core';
import { type InputFormat, runListKey, type ValueKind } from './classify-value.js';
import { explorerEventList } from './explorer-event-list.js';
import { foreignEventList } from './foreign-event-list.js';
import type { BlockItem, EntryItem, InputItem, TraceItem } from './input-items.js';
import { isObject } from './is-object.js';
import { traceLabel } from './trace-label.js';

function join(base: string, part: string | number): string {
  return base === '' ? String(part) : `${base}.${part}`;
}

/** Where a trace's events are: its events array (`messages`, ...), else the trace itself. */
function eventsPath(value: unknown, path: string): string {
  if (isObject(value))
    for (const key of traceEventKeys) if (Array.isArray(value[key])) return join(path, key);
  return path;
}

/**
 * @internal The items of a whole JSON document, in document order. Lines are looked up only when
 * a report asks for them (`lineOf` maps a JSON path to its line).
 * @param value - the parsed document
 * @param kind - what it holds, when it could be told
 * @param format - the format it is read as
 * @param lineOf - the line of a JSON path (`'traces.3.messages.0'`)
 */
export async function* documentItems(
  value: unknown,
  kind: ValueKind | undefined,
  format: InputFormat,
  lineOf: (path: string) => number | undefined,
): AsyncGenerator<InputItem> {
  let traceIndex = 0;
  const trace = (read: unknown, path: string): TraceItem => {
    const index = traceIndex++;
    const base = eventsPath(read, path);
    // events are counted from the first real one; their lines are those of the file
    const { trace: listed, skipped } = explorerEventList(read);
    // a run in another API's shape is read as chat events; lines stay those of the file
    const { trace: traceValue, sourceOf } = foreignEventList(listed);
    return {
      type: 'trace',
      value: traceValue,
      index,
      label: traceLabel(traceValue, index),
      get line() {
        return lineOf(join(base, skipped)) ?? lineOf(path);
      },
      lineOfEvent: (event) => {
        const source = sourceOf === undefined ? event : sourceOf(event);
        return source === undefined ? lineOf(path) : lineOf(join(base, source + skipped));
      },
    };
  };
  // an object literal's getter: `Object.defineProperty` with a new getter per item would give
  // every item its own hidden class (kept until a full GC, and a young-GC root)
  const located = (type: 'block' | 'entry', item: unknown, path: string): BlockItem | EntryItem =>
    ({
      type,
      value: item,
      path,
      get line() {
        return lineOf(path);
      },
    }) as BlockItem | EntryItem;

  if (format === 'blocks' || format === 'entries') {
    const type = format === 'blocks' ? 'block' : 'entry';
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) yield located(type, value[i], String(i));
    } else if (type === 'block' && isObject(value) && Array.isArray(value.blocks)) {
      // the collector's batch or page body (`{ blocks, next_cursor }`)
      const blocks = value.blocks;
      for (let i = 0; i < blocks.length; i++) yield located(type, blocks[i], join('blocks', i));
    } else {
      yield located(type, value, '');
    }
    return;
  }
  if (kind === 'dataset' && isObject(value)) {
    const { traces, ...metadata } = value;
    yield { type: 'dataset-metadata', value: metadata, line: 1 };
    const list = Array.isArray(traces) ? traces : [];
    for (let i = 0; i < list.length; i++) yield trace(list[i], join('traces', i));
    return;
  }
  if (kind === 'traces' && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield trace(value[i], String(i));
    return;
  }
  // an evaluation log's runs (Inspect AI's `samples`, tau2-bench's `simulations`)
  const runs = kind === 'traces' && isObject(value) ? runListKey(value) : undefined;
  if (runs !== undefined && isObject(value)) {
    const list = value[runs] as unknown[];
    for (let i = 0; i < list.length; i++) yield trace(list[i], join(runs, i));
    return;
  }
  if (kind === 'event') {
    yield trace([value], '');
    return;
  }
  yield trace(value, '');
}
