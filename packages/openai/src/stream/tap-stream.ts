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
  return new TapIterator(inner, observer, controller);
}

/**
 * The tapped iterator. A class (methods on the prototype, two bound callbacks) rather than a
 * closure per method, so a stream costs a handful of allocations, and each item costs one `then`
 * on the inner promise (no async frame, no extra promise) in the common case of nothing queued
 * or held.
 */
class TapIterator<T> implements AsyncIterator<T> {
  private readonly queue: T[] = [];
  private held: T[] | undefined;
  private finished = false;
  /** Set by {@link DeliverThenStop}: thrown by the next read. */
  private pending: { error: unknown } | undefined;
  private readonly onResult: (
    result: IteratorResult<T>,
  ) => IteratorResult<T> | Promise<IteratorResult<T>>;
  private readonly onError: (error: unknown) => never;

  constructor(
    private readonly inner: AsyncIterator<T>,
    private readonly observer: StreamObserver<T>,
    private readonly controller: AbortController,
  ) {
    this.onResult = this.result.bind(this);
    this.onError = this.fail.bind(this);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.queue.length > 0)
      return Promise.resolve({ done: false, value: this.queue.shift() as T });
    if (this.pending !== undefined) {
      const { error } = this.pending;
      this.pending = undefined;
      return Promise.reject(error);
    }
    if (this.finished) return Promise.resolve({ done: true, value: undefined });
    return this.pull();
  }

  async return(value?: unknown): Promise<IteratorResult<T>> {
    this.pending = undefined;
    if (!this.finished) {
      this.finished = true;
      this.observer.cancel();
    }
    this.queue.length = 0;
    if (this.inner.return) return this.inner.return(value);
    return { done: true, value: undefined };
  }

  private pull(): Promise<IteratorResult<T>> {
    return this.inner.next().then(this.onResult, this.onError);
  }

  private async stop(error: unknown): Promise<never> {
    this.finished = true;
    this.controller.abort();
    try {
      await this.inner.return?.();
    } catch {
      // the stop reason matters, not the cleanup's
    }
    throw error;
  }

  private fail(error: unknown): never {
    this.finished = true;
    throw this.observer.error(error);
  }

  private result(result: IteratorResult<T>): IteratorResult<T> | Promise<IteratorResult<T>> {
    const queue = this.queue;
    if (result.done) {
      this.finished = true;
      const deliver = this.observer.end(this.held ?? []);
      if (deliver.length === 0) return result;
      queue.push(...deliver);
      return { done: false, value: queue.shift() as T };
    }
    let value: T | undefined | typeof HOLD | DeliverThenStop<T>;
    try {
      value = this.observer.item(result.value, queue);
    } catch (error) {
      return this.stop(error);
    }
    // the common case: the very chunk read, nothing queued or held — hand over the SDK's result
    if (value === result.value && queue.length === 0 && this.held === undefined) return result;
    if (value instanceof DeliverThenStop) {
      if (this.held !== undefined) return this.stop(value.error);
      const last: IteratorResult<T> = { done: false, value: value.value };
      this.pending = { error: value.error };
      queue.length = 0;
      this.finished = true;
      this.controller.abort();
      const delivered = (): IteratorResult<T> => last;
      return Promise.resolve(this.inner.return?.()).then(delivered, delivered);
    }
    const held = this.held;
    if (held !== undefined) {
      // while holding, HOLD holds this item too (it was dropped: a refused Responses stream lost
      // everything after its first held event, `response.completed` included)
      if (value === HOLD) held.push(result.value);
      else if (value !== undefined) held.push(value);
      held.push(...queue);
      queue.length = 0;
      return this.pull();
    }
    if (value === HOLD) {
      this.held = [result.value, ...queue];
      queue.length = 0;
      return this.pull();
    }
    if (value !== undefined) {
      if (queue.length === 0) return { done: false, value };
      queue.unshift(value);
      return { done: false, value: queue.shift() as T };
    }
    if (queue.length > 0) return { done: false, value: queue.shift() as T };
    return this.pull();
  }
}
