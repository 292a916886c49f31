import type {
  ModelCallHandle,
  ModelCallOutcome,
  ModelCallRecorder,
  ModelCallStartInput,
  Tracer,
} from '@tracewarden/core';
import type { StreamObserver } from '../stream/tap-stream.js';

/** State shared by a wrapped client and its `withOptions()` clones. @internal */
export interface WrapContext {
  recorder: ModelCallRecorder;
  /** The per-client tracer used when no other is given (created on first use). */
  defaultTracer: () => Tracer;
  includeUsage: boolean;
  recordRaw: boolean;
  /** A whole-call timeout is configured: the handle's signal goes to the request. */
  timeout: boolean;
  /** The options the client was wrapped with (a second `wrapOpenAI` may repeat them only). */
  options: object;
}

/** A request body after the adapter's changes. @internal */
export interface PreparedRequest {
  body: Record<string, unknown>;
  /** We turned `stream_options.include_usage` on: the caller did not ask for the usage chunk. */
  injectedUsage: boolean;
}

/** What is OpenAI-API-specific (chat completions or responses) in wrapping `create`. @internal */
export interface ApiAdapter {
  readonly api: 'chat.completions' | 'responses';
  /**
   * The neutral start input of a request body, built as one object literal (one hidden class:
   * this runs on every call).
   */
  start(
    body: Record<string, unknown>,
    stream: boolean,
    signal: AbortSignal | null | undefined,
  ): ModelCallStartInput;
  /** The body actually sent. */
  prepare(body: Record<string, unknown>, context: WrapContext): PreparedRequest;
  /** Records a non-streamed response; may change it (refusals) or throw (policy block). */
  finish(
    data: unknown,
    requestId: string | null,
    handle: ModelCallHandle,
    context: WrapContext,
  ): ModelCallOutcome;
  /** The observer of a streamed response. */
  observeStream(
    controller: AbortController,
    handle: ModelCallHandle,
    prepared: PreparedRequest,
    context: WrapContext,
  ): StreamObserver<unknown>;
}
