/** Returned by {@link StreamObserver.item} to hold this item and every later one until the end. @internal */
export const HOLD: unique symbol = Symbol('tracewarden.hold');

/**
 * Returned by {@link StreamObserver.item} to deliver this item and then stop: the request is
 * aborted at once and the next read throws `error` (a live budget cut-off hands over the last
 * chunk that was paid for). @internal
 */
export class DeliverThenStop<T> {
  constructor(
    readonly value: T,
    readonly error: unknown,
  ) {}
}

/**
 * Watches the items of an SDK stream as the caller reads them.
 * @internal
 */
export interface StreamObserver<T> {
  /**
   * Sees one item. Returns the item to deliver (possibly a changed copy), `undefined` to skip
   * it, or {@link HOLD} to hold it and everything after it until {@link StreamObserver.end}.
   * Throwing stops the stream (the request is aborted) and the caller gets the error;
   * {@link DeliverThenStop} stops it after delivering one last item.
   */
  item(value: T, extra: T[]): T | undefined | typeof HOLD | DeliverThenStop<T>;
  /** The stream ended; `held` are the held items. Returns what to deliver; may throw. */
  end(held: T[]): T[];
  /** Reading failed; returns the error the caller gets. */
  error(error: unknown): unknown;
  /** The caller stopped early (`break`, `return()`). */
  cancel(): void;
}

interface StreamLike<T> {
  controller: AbortController;
  iterator?: () => AsyncIterator<T>;
  [Symbol.asyncIterator](): AsyncIterator<T>;
}

/**
 * Taps an SDK `Stream` in place: the caller keeps the very same object (its class, controller,
 * `tee()`, `toReadableStream()`), and every item passes through `observer` as it is read; the
 * body is never read twice.
 * @internal
 */
export function tapStream<T, S extends StreamLike<T>>(stream: S, observer: StreamObserver<T>): S {
  const source = stream.iterator;
  if (typeof source === 'function') {
    stream.iterator = () => tapIterator(source.call(stream), observer, stream.controller);
  } else {
    const iterate = stream[Symbol.asyncIterator];
    stream[Symbol.asyncIterator] = () =>
      tapIterator(iterate.call(stream), observer, stream.controller);
  }
  return stream;
}

function tapIterator<T>(
  inner: AsyncIterator<T>,
  observer: StreamObserver<T>,
  controller: AbortController,
): AsyncIterator<T> {
  const queue: T[] = [];
  let held: T[] | undefined;
  let finished = false;
  /** Set by {@link DeliverThenStop}: thrown by the next read. */
  let pending: { error: unknown } | undefined;

  async function stop(error: unknown): Promise<never> {
    finished = true;
    controller.abort();
    try {
      await inner.return?.();
    } catch {
      // the stop reason matters, not the cleanup's
    }
    throw error;
  }

  // Items come in one at a time with nothing queued or held in the common case: answer with one
  // `then` on the inner promise (no extra async frame per chunk).
  const onResult = (result: IteratorResult<T>): IteratorResult<T> | Promise<IteratorResult<T>> => {
    if (result.done) {
      finished = true;
      const deliver = observer.end(held ?? []);
      if (deliver.length === 0) return result;
      queue.push(...deliver);
      return { done: false, value: queue.shift() as T };
    }
    let value: T | undefined | typeof HOLD | DeliverThenStop<T>;
    try {
      value = observer.item(result.value, queue);
    } catch (error) {
      return stop(error);
    }
    if (value instanceof DeliverThenStop) {
      if (held !== undefined) return stop(value.error);
      const last: IteratorResult<T> = { done: false, value: value.value };
      pending = { error: value.error };
      queue.length = 0;
      finished = true;
      controller.abort();
      const delivered = (): IteratorResult<T> => last;
      return Promise.resolve(inner.return?.()).then(delivered, delivered);
    }
    if (held !== undefined) {
      if (value !== undefined && value !== HOLD) held.push(value);
      held.push(...queue);
      queue.length = 0;
      return pull();
    }
    if (value === HOLD) {
      held = [result.value, ...queue];
      queue.length = 0;
      return pull();
    }
    if (value !== undefined) {
      if (queue.length === 0) return result.value === value ? result : { done: false, value };
      queue.unshift(value);
      return { done: false, value: queue.shift() as T };
    }
    if (queue.length > 0) return { done: false, value: queue.shift() as T };
    return pull();
  };
  const onError = (error: unknown): never => {
    finished = true;
    throw observer.error(error);
  };
  const pull = (): Promise<IteratorResult<T>> => inner.next().then(onResult, onError);

  return {
    next(): Promise<IteratorResult<T>> {
      if (queue.length > 0) return Promise.resolve({ done: false, value: queue.shift() as T });
      if (pending !== undefined) {
        const { error } = pending;
        pending = undefined;
        return Promise.reject(error);
      }
      if (finished) return Promise.resolve({ done: true, value: undefined });
      return pull();
    },
    async return(value?: unknown): Promise<IteratorResult<T>> {
      pending = undefined;
      if (!finished) {
        finished = true;
        observer.cancel();
      }
      queue.length = 0;
      if (inner.return) return inner.return(value);
      return { done: true, value: undefined };
    },
  };
}
