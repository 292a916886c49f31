import type { ModelCallHandle } from '@tracewarden/core';

/** Key under which a request's handle rides in the SDK's per-request `fetchOptions`. @internal */
export const attemptKey: unique symbol = Symbol.for('tracewarden.openai.attempt');
const wrappedFetch = Symbol.for('tracewarden.openai.fetch');

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Wraps a client's `fetch` so that every HTTP attempt the SDK makes (its own retries included)
 * is recorded on the model call it belongs to. The call's handle travels in the request's
 * `fetchOptions` under a symbol key (the SDK spreads those into the `RequestInit` it passes to
 * `fetch`), so nothing global is needed and concurrent calls never mix up.
 * @internal
 */
export function wrapFetch(fetch: Fetch): Fetch {
  if ((fetch as { [wrappedFetch]?: boolean })[wrappedFetch] === true) return fetch;
  const wrapped: Fetch = (input, init) => {
    const handle = (init as { [attemptKey]?: ModelCallHandle } | undefined)?.[attemptKey];
    if (handle === undefined) return fetch(input, init);
    // a guard with a shared store (Redis) decides asynchronously: nothing is sent before it has.
    // A refusal aborts the request's signal too, so the SDK does not retry it.
    const admission = handle.admission;
    if (admission !== undefined) return admission.then(() => send(fetch, handle, input, init));
    return send(fetch, handle, input, init);
  };
  Object.defineProperty(wrapped, wrappedFetch, { value: true });
  return wrapped;
}

function send(
  fetch: Fetch,
  handle: ModelCallHandle,
  input: string | URL | Request,
  init: RequestInit | undefined,
): Promise<Response> {
  const started = performance.now();
  let pending: Promise<Response>;
  try {
    // a custom fetch may return a Response itself; for a native promise this is the same object
    pending = Promise.resolve(fetch(input, init));
  } catch (error) {
    recordError(handle, started, error);
    return Promise.reject(error);
  }
  // The SDK gets fetch's own promise; the attempt is recorded by handlers attached first, so
  // they run before the SDK resumes: no async layer (and microtask hop) per attempt.
  pending.then(
    (response) => recordResponse(handle, started, response),
    (error: unknown) => recordError(handle, started, error),
  );
  return pending;
}

function durationSince(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

// The two recorders never throw: a throw would reject a promise nobody reads.

function recordResponse(handle: ModelCallHandle, started: number, response: Response): void {
  try {
    // one literal (the handle copies the defined fields): no spread on every attempt
    handle.attempt({
      http_status: response.status,
      outcome: response.ok ? 'success' : 'failure',
      duration_ms: durationSince(started),
      request_id: response.headers.get('x-request-id') ?? undefined,
    });
  } catch {
    // an attempt that cannot be recorded is left out; the call goes on
  }
}

function recordError(handle: ModelCallHandle, started: number, error: unknown): void {
  try {
    handle.attempt({
      outcome: 'error',
      duration_ms: durationSince(started),
      error: error instanceof Error ? error.message : String(error),
    });
  } catch {
    // an attempt that cannot be recorded is left out; the call goes on
  }
}
