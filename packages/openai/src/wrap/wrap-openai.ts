import {
  type AdapterOptions,
  checkAdapterOptions,
  configurationError,
  createAdapterRuntime,
  type ModelCallHandle,
  type ModelCallPricer,
  optionChecks,
  type PricingOption,
  type Tracer,
} from '@tracewarden/core';
import { APIPromise } from 'openai';
import { chatApi } from '../chat/chat-api.js';
import { responsesApi } from '../responses/responses-api.js';
import { tapStream } from '../stream/tap-stream.js';
import { attemptKey, wrapFetch } from '../transport/attempt-fetch.js';
import type { ApiAdapter, WrapContext } from './api-adapter.js';
import { linkRecorded } from './link-recorded.js';

/**
 * Options of {@link wrapOpenAI}: the options every adapter shares ({@link AdapterOptions}:
 * `tracer`, `guards`, `timeoutSeconds`, `policy`, `onPolicyViolation`, `refusalMessage`,
 * `pricing`, `recordRaw`, `onRecordingError`), plus `includeUsage`.
 */
export interface WrapOpenAIOptions extends AdapterOptions {
  /**
   * Ask for usage on streamed chat completions (`stream_options.include_usage`). The extra
   * usage-only chunk is recorded but not shown to you unless you asked for it yourself.
   * @default true
   */
  includeUsage?: boolean | undefined;
}

/**
 * How a wrapped client prices calls (the shared adapter option).
 * @deprecated use `PricingOption` from `@tracewarden/core`
 */
export type WrapPricingOption = PricingOption;

/** The structural part of an OpenAI client that {@link wrapOpenAI} patches (openai 6 and 7). */
export interface OpenAIClientLike {
  chat: { completions: { create(body: never, options?: never): unknown } };
  withOptions(options: never): unknown;
}

const wrappedMarker = Symbol.for('tracewarden.openai.wrapped');

interface Patchable {
  [wrappedMarker]?: WrapContext;
  fetch?: unknown;
  withOptions: (options: unknown) => unknown;
  chat: { completions: { create: (body: unknown, options?: unknown) => unknown } };
  responses?: { create: (body: unknown, options?: unknown) => unknown };
}

interface APIPromiseInternals<T> {
  responsePromise?: Promise<unknown>;
  parseResponse?: unknown;
  /** Set once the body is being parsed (`then`, `parse()`, `withResponse()`). */
  parsedPromise?: Promise<unknown>;
  _thenUnwrap<U>(
    transform: (data: T, props: { response: Response; options: unknown }) => U,
  ): unknown;
  asResponse(): Promise<Response>;
  withResponse(): Promise<unknown>;
}

type APIPromiseClass = {
  new (
    client: unknown,
    responsePromise: Promise<unknown>,
    parseResponse?: unknown,
  ): APIPromiseInternals<unknown>;
  prototype: APIPromiseInternals<unknown>;
};

function noop(): void {}

/** Ends the call from the SDK's error: cancelled when the caller aborted, else failed. */
function failureOf(handle: ModelCallHandle, error: unknown, signal?: AbortSignal | null): unknown {
  return handle.end(error, signal);
}

/**
 * The request id of a response: the `_request_id` the SDK's parser already put on the parsed
 * body (openai 6 and 7 do), else the header (one header lookup fewer per call).
 */
function requestIdOf(data: unknown, response: Response): string | null {
  const id = (data as { _request_id?: unknown } | null)?._request_id;
  return typeof id === 'string' ? id : response.headers.get('x-request-id');
}

/**
 * `_request_id` on a stream, as openai 7's `_thenUnwrap` puts it on every parsed value: openai 6
 * parses a chat stream without it (a JSON body has it either way).
 */
function ensureRequestId(value: object, response: Response): void {
  if ('_request_id' in value) return;
  Object.defineProperty(value, '_request_id', {
    value: response.headers.get('x-request-id'),
    enumerable: false,
  });
}

/**
 * The error of a 200 answer whose body is `{ "error": { "message": ... } }` with no choices and no
 * output, as an `Error` to record; else `undefined`.
 */
function errorBodyOf(data: unknown): Error | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const body = data as { error?: unknown; choices?: unknown; output?: unknown };
  if (body.error === undefined || body.error === null) return undefined;
  if (Array.isArray(body.choices) || Array.isArray(body.output)) return undefined;
  const detail = body.error as { message?: unknown };
  const message = typeof detail?.message === 'string' ? detail.message : JSON.stringify(body.error);
  const error = new Error(`the provider answered 200 with an error body: ${message}`);
  error.name = 'ProviderErrorBody';
  return error;
}

function rejected(client: unknown, error: unknown): unknown {
  const failed = Promise.reject(error);
  failed.catch(noop);
  return new (APIPromise as unknown as APIPromiseClass)(client, failed);
}

/**
 * A call consumed only through `asResponse()` never reaches the parser, so the response would
 * stay unrecorded: record it (content `null`, `metadata.unparsed`) when the `Response` is handed
 * out, unless the body is being parsed too (`withResponse()` parses first, then calls
 * `asResponse()`; the parsed response is recorded then).
 */
function recordUnparsed(
  promise: APIPromiseInternals<unknown>,
  handle: ModelCallHandle,
  api: string,
  readsResponses: boolean,
): void {
  const asResponse = promise.asResponse;
  promise.asResponse = function recordedAsResponse(
    this: APIPromiseInternals<unknown>,
  ): Promise<Response> {
    return asResponse.call(this).then((response) => {
      if (this.parsedPromise === undefined && readsResponses) {
        // the raw body would reach the caller unread: its tool calls unreviewed by the policy,
        // its usage uncharged by the budget. withResponse() gives the same Response, reviewed.
        void response.body?.cancel().catch(noop);
        const error = configurationError(
          `${api}.create(...).asResponse`,
          'asResponse()',
          'withResponse() when the client has a policy or a budget: asResponse() hands out the body unread, so its tool calls would go unreviewed and its usage uncharged (withResponse() gives the same Response with the reviewed data)',
          'asResponse()',
        );
        handle.fail(error, {
          requestId: response.headers.get('x-request-id'),
          metadata: { unparsed: true, http_status: response.status },
        });
        throw error;
      }
      if (this.parsedPromise === undefined) {
        const requestId = response.headers.get('x-request-id');
        const partial = {
          requestId,
          metadata: { unparsed: true, http_status: response.status, request_id: requestId },
        };
        if (response.ok) handle.finish(partial);
        else handle.fail(`HTTP ${response.status} ${response.statusText}`.trim(), partial);
      }
      return response;
    });
  };
}

function instrumentCreate(
  client: Patchable,
  resource: { create: (body: unknown, options?: unknown) => unknown },
  adapter: ApiAdapter,
  context: WrapContext,
): void {
  const original = resource.create;
  resource.create = function create(this: unknown, body: unknown, options?: unknown): unknown {
    const request = body as Record<string, unknown>;
    const userOptions = options as
      | { signal?: AbortSignal | null; fetchOptions?: Record<string | symbol, unknown> }
      | null
      | undefined;
    const userSignal = userOptions?.signal;
    const stream = request.stream === true;
    // several answers per request (`n`): the policy reviews and the trace records one answer
    // per call, so the others' tool calls would pass unchecked
    const answers = request?.n;
    if (context.recorder.hasPolicy && typeof answers === 'number' && answers > 1)
      return rejected(
        client,
        configurationError(
          `${adapter.api}.create`,
          'n',
          'n: 1 (or no n) when the client has a policy: the policy reviews one answer per call, and the tool calls of the other answers would run unchecked',
          answers,
        ),
      );
    let handle: ModelCallHandle;
    try {
      handle = context.recorder.start(adapter.start(request, stream, userSignal));
    } catch (error) {
      return rejected(client, error);
    }
    const prepared = adapter.prepare(request, context);
    // The handle rides in `fetchOptions` to the wrapped fetch. Without options (the usual call)
    // no spreads.
    const fetchOptions: Record<string | symbol, unknown> =
      userOptions?.fetchOptions == null ? {} : { ...userOptions.fetchOptions };
    fetchOptions[attemptKey] = handle;
    let requestOptions: Record<string | symbol, unknown>;
    if (userOptions === undefined || userOptions === null) requestOptions = { fetchOptions };
    else {
      requestOptions = { ...userOptions };
      requestOptions.fetchOptions = fetchOptions;
    }
    // the handle's signal aborts on a timeout, and on a refusal by a guard that decides
    // asynchronously (the SDK then gives up instead of retrying the request)
    if (context.timeout || handle.admission !== undefined) requestOptions.signal = handle.signal;

    let promise: APIPromiseInternals<unknown>;
    try {
      promise = original.call(this, prepared.body, requestOptions) as APIPromiseInternals<unknown>;
    } catch (error) {
      throw failureOf(handle, error);
    }

    const transform = (data: unknown, props: { response: Response }): unknown => {
      if (stream && typeof data === 'object' && data !== null && 'controller' in data) {
        const sdkStream = data as {
          controller: AbortController;
          [Symbol.asyncIterator](): AsyncIterator<unknown>;
        };
        ensureRequestId(sdkStream, props.response);
        return tapStream(
          sdkStream,
          adapter.observeStream(sdkStream.controller, handle, prepared, context),
        );
      }
      // a 200 whose body is an error (OpenRouter and some proxies answer so): the SDK hands it
      // out as it is; recorded as the failure it is, not read as an answer
      const providerError = errorBodyOf(data);
      if (providerError !== undefined) {
        handle.fail(providerError, { requestId: requestIdOf(data, props.response) });
        return data;
      }
      const outcome = adapter.finish(data, requestIdOf(data, props.response), handle, context);
      linkRecorded(handle.tracer, data, outcome);
      return data;
    };

    // Patch the SDK's own APIPromise in place (no second APIPromise, WeakMap entry and async
    // layer per call): its response promise records failures (and, when a guard stopped the
    // call, gives the guard's typed error instead), and its parser runs the SDK's parser then our
    // transform. `withResponse()`, `asResponse()` and `_request_id` keep working, the body is
    // parsed once, and the caller gets the SDK's very object. The transform returns the object
    // it was given (a stream is tapped in place), so the SDK's `_request_id` stays on it.
    // openai 7 gives each APIPromise its own `_thenUnwrap`, closed over the unpatched parser
    // (helpers such as `parse()` chain on it): the class's own, which reads the patched fields,
    // takes its place. Its own `withResponse` stays: it awaits the (patched) promise and then
    // reads the request, so after a body-timeout retry it reports the retry's response.
    if (promise.responsePromise !== undefined && typeof promise.parseResponse === 'function') {
      const methods = (promise.constructor as APIPromiseClass).prototype;
      promise._thenUnwrap = methods._thenUnwrap;
      if (context.timeout || handle.admission !== undefined) {
        // The whole-call deadline, or a guard deciding asynchronously, can stop the call before
        // the response: its typed error (GuardTimeoutError, BudgetExceededError, ...) replaces
        // the SDK's abort error, so the caller reads it through a promise of ours.
        const responsePromise = promise.responsePromise.then(undefined, (error: unknown) => {
          throw failureOf(handle, error, userSignal);
        });
        responsePromise.catch(noop);
        promise.responsePromise = responsePromise;
      } else {
        // Nothing can stop the call before its response, so a failure is only recorded: from a
        // handler beside the caller's (attached first, so it runs first), not a promise in
        // between, which would cost every call a microtask hop.
        promise.responsePromise.then(undefined, (error: unknown) => {
          failureOf(handle, error, userSignal);
        });
      }
      const parse = promise.parseResponse as (
        client: unknown,
        props: { response: Response },
      ) => Promise<unknown>;
      promise.parseResponse = function parseRecorded(
        this: unknown,
        parseClient: unknown,
        props: { response: Response },
      ): Promise<unknown> {
        // a body the SDK cannot parse (truncated JSON, an HTML page) fails the call: recorded
        // now, not left open until a deadline calls it a timeout
        return parse.call(this, parseClient, props).then(
          (data) => transform(data, props),
          (error: unknown) => {
            throw failureOf(handle, error, userSignal);
          },
        );
      };
      recordUnparsed(promise, handle, adapter.api, context.recorder.readsResponses);
      return promise;
    }
    // An SDK without those internals: record failures by observation only.
    promise.asResponse().catch((error: unknown) => failureOf(handle, error, userSignal));
    return promise._thenUnwrap(transform);
  };
}

function instrument<T>(client: T, context: WrapContext): T {
  const patchable = client as unknown as Patchable;
  if (patchable[wrappedMarker] !== undefined) return client;
  Object.defineProperty(patchable, wrappedMarker, {
    value: context,
    enumerable: false,
    configurable: true,
  });
  if (typeof patchable.fetch === 'function') {
    patchable.fetch = wrapFetch(patchable.fetch as Parameters<typeof wrapFetch>[0]);
  }
  instrumentCreate(patchable, patchable.chat.completions, chatApi, context);
  if (patchable.responses !== undefined && typeof patchable.responses.create === 'function') {
    instrumentCreate(patchable, patchable.responses, responsesApi, context);
  }
  const withOptions = patchable.withOptions;
  patchable.withOptions = function wrappedWithOptions(this: unknown, options: unknown): unknown {
    return instrument(withOptions.call(this, options), context);
  };
  return client;
}

/**
 * The same options: plain objects and arrays alike key by key, anything else (a tracer, a
 * policy, a function, a budget) the very same value. A client wrapped again per request with a
 * fresh literal of the same options is the same wrap.
 */
function sameOptions(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (depth > 8 || typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameOptions(item, b[i], depth + 1));
  }
  const plain = (value: object) => {
    const prototype = Object.getPrototypeOf(value);
    return prototype === Object.prototype || prototype === null;
  };
  if (!plain(a) || !plain(b)) return false;
  const defined = (value: object) =>
    Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  const keys = defined(a);
  if (keys.length !== defined(b).length) return false;
  return keys.every((key) =>
    sameOptions(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      depth + 1,
    ),
  );
}

/**
 * Traces and guards every model call of an OpenAI client: `chat.completions.create` and
 * `responses.create`, streamed or not, and so every helper built on them (`stream`, `parse`,
 * `runTools`, `responses.stream`). Returns the same instance with its exact type; clients made
 * by `withOptions()` stay wrapped; wrapping it again with no options (or the same options: the
 * same tracer, policy and guards) changes nothing, and other options are refused (they could
 * not apply).
 *
 * Each call records the request's new messages, then an assistant MESSAGE with its THINK and
 * TOOL_CALL blocks and metadata (model, usage, cost, latency, time to first token, request id,
 * status, every SDK attempt). Proposed tool calls are checked against `policy` before you see
 * them complete.
 *
 * @param client - an `OpenAI` (or `AzureOpenAI`, or a subclass) instance, openai 6 or 7
 * @param options - tracer, guards, timeout, policy, pricing
 * @returns `client` itself, patched
 * @throws ConfigurationError (`INVALID_OPTIONS`) for a `client` that is no OpenAI client, an
 *   unknown option or a wrong value, or new options for a client already wrapped
 * @example
 * ```ts
 * const openai = wrapOpenAI(new OpenAI(), { tracer, policy });
 * const completion = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
 * console.log(renderTree(tracer.stitched()));
 * ```
 */
export function wrapOpenAI<T extends OpenAIClientLike>(
  client: T,
  options: WrapOpenAIOptions = {},
): T {
  const chat = (client as { chat?: { completions?: { create?: unknown } } } | null)?.chat;
  if (
    typeof client !== 'object' ||
    client === null ||
    typeof chat?.completions?.create !== 'function'
  )
    throw configurationError(
      'wrapOpenAI',
      'client',
      'an OpenAI client (new OpenAI(), new AzureOpenAI(), or a subclass), openai 6 or 7',
      client,
    );
  const wrapped = (client as unknown as Patchable)[wrappedMarker] as WrapContext | undefined;
  if (wrapped !== undefined) {
    // again with nothing new: nothing changes. Other options cannot apply to a client already
    // patched with its own (a policy given here would silently guard nothing)
    if (
      options === undefined ||
      sameOptions(options, {}, 0) ||
      sameOptions(options, wrapped.options, 0)
    )
      return client;
    checkAdapterOptions(options, 'wrapOpenAI', { includeUsage: optionChecks.boolean });
    throw configurationError(
      'wrapOpenAI',
      'options',
      'no options (or the same options again) for a client that is already wrapped: its tracer, guards and policy cannot change. Wrap another client (new OpenAI(...)) for other options',
      options,
    );
  }
  const runtime = createAdapterRuntime(options, {
    entryPoint: 'wrapOpenAI',
    provider: 'openai',
    extraOptions: { includeUsage: optionChecks.boolean },
  });
  const context: WrapContext = {
    recorder: runtime.recorder,
    defaultTracer: runtime.defaultTracer,
    includeUsage: options.includeUsage !== false,
    recordRaw: runtime.recordRaw,
    timeout: runtime.hasTimeout,
    options,
  };
  return instrument(client, context);
}

/**
 * The tracer a wrapped client records into when neither `options.tracer` nor an enclosing
 * `withTrace` gives one: created on first use, shared with its `withOptions()` clients, and
 * replaced by a new one every `fallbackTraceMaxCalls` (1,000) model calls so that memory stays
 * bounded. Read it again rather than keeping it; pass a tracer with a sink to keep every call.
 * @param client - a client returned by {@link wrapOpenAI}
 * @returns the tracer, or `undefined` for a client that is not wrapped
 * @example
 * ```ts
 * const openai = wrapOpenAI(new OpenAI());
 * await openai.chat.completions.create({ model, messages });
 * console.log(defaultTracerOf(openai)?.blocks().length);
 * ```
 */
export function defaultTracerOf(client: object): Tracer | undefined {
  return (client as Patchable)[wrappedMarker]?.defaultTracer();
}

/**
 * Whether a client is wrapped by {@link wrapOpenAI}.
 * @param client - any object
 * @returns true for a wrapped client (or one made from it by `withOptions()`)
 * @example
 * ```ts
 * isWrapped(wrapOpenAI(new OpenAI())); // true
 * ```
 */
export function isWrapped(client: object): boolean {
  return (client as Patchable)[wrappedMarker] !== undefined;
}

export type { ModelCallPricer };
