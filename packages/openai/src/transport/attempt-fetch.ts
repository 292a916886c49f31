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
  const wrapped: Fetch = async (input, init) => {
    const handle = (init as { [attemptKey]?: ModelCallHandle } | undefined)?.[attemptKey];
    if (handle === undefined) return fetch(input, init);
    const started = performance.now();
    try {
      const response = await fetch(input, init);
      const requestId = response.headers.get('x-request-id');
      handle.attempt({
        http_status: response.status,
        outcome: response.ok ? 'success' : 'failure',
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        ...(requestId === null ? {} : { request_id: requestId }),
      });
      return response;
    } catch (error) {
      handle.attempt({
        outcome: 'error',
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  };
  Object.defineProperty(wrapped, wrappedFetch, { value: true });
  return wrapped;
}
