import { validateOptions } from '../errors/validate-options.js';
import type { Block } from '../model/index.js';
import { stitchBlocks } from '../stitching/index.js';
import { renderTree } from './render-tree.js';
import type { Sink } from './sink.js';
import { SinkError } from './sink-error.js';
import { consoleSinkOptionsSchema } from './sink-options-schema.js';

/** Options of {@link createConsoleSink}. */
export interface ConsoleSinkOptions {
  /** Where the tree is printed. @default process.stdout */
  stream?: NodeJS.WritableStream;
  /** Color with ANSI escapes. @default false */
  color?: boolean;
  /** Line width of the tree. @default 120 */
  maxWidth?: number;
  /** Print values in full instead of shortening them. @default false */
  full?: boolean;
}

/**
 * Creates a sink that prints a readable tree of each trace (see {@link renderTree}) on
 * `flush()`. Blocks are collected by `write()`; each flush prints, for every trace that
 * received blocks since the previous flush, its whole stitched tree so far. Nothing is printed
 * when nothing new arrived.
 *
 * @param options - output stream, color and width
 * @returns a {@link Sink}
 * @example
 * ```ts
 * const tracer = createTracer({ sinks: [createConsoleSink({ color: process.stdout.isTTY })] });
 * // ... log blocks ...
 * await tracer.flush(); // prints the tree
 * ```
 */
export function createConsoleSink(options: ConsoleSinkOptions = {}): Sink {
  validateOptions(consoleSinkOptionsSchema, options, {
    entryPoint: 'createConsoleSink',
    allOptional: true,
  });
  const stream = options.stream ?? process.stdout;
  const renderOptions = {
    color: options.color ?? false,
    full: options.full ?? false,
    maxWidth: options.maxWidth ?? 120,
  };
  const byTrace = new Map<string, Block[]>();
  const changed = new Set<string>();
  let closed = false;

  function print(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      stream.write(text, (error) => {
        if (error) {
          reject(
            new SinkError({
              code: 'SINK_WRITE_FAILED',
              message: `console sink: could not print the trace tree (${error.message}); check the output stream`,
              cause: error,
            }),
          );
        } else {
          resolve();
        }
      });
    });
  }

  async function flush(): Promise<void> {
    if (changed.size === 0) return;
    const text: string[] = [];
    for (const traceId of changed) {
      const blocks = byTrace.get(traceId) ?? [];
      text.push(renderTree(stitchBlocks(blocks, { traceId }), renderOptions));
    }
    const pending = [...changed];
    changed.clear();
    try {
      await print(`${text.join('\n\n')}\n`);
    } catch (error) {
      for (const traceId of pending) changed.add(traceId);
      throw error;
    }
  }

  return {
    write(block) {
      if (closed) {
        throw new SinkError({
          code: 'SINK_CLOSED',
          message: `console sink: write() of block ${String((block as { id?: unknown } | null | undefined)?.id)} after close(); create a new sink`,
        });
      }
      let blocks = byTrace.get(block.trace_id);
      if (blocks === undefined) byTrace.set(block.trace_id, (blocks = []));
      blocks.push(block);
      changed.add(block.trace_id);
    },
    flush,
    async close() {
      closed = true;
      await flush();
    },
  };
}
