import type { ScriptedTurn } from '../turns/scripted-turn.js';
import type { RecordedRequest } from './recorded-request.js';

/**
 * Computes the turn for a request when the queue of scripted turns is empty.
 *
 * @param request - The request being answered (already in `server.requests`).
 * @param index - 0-based index of this model request among all model requests since the last reset.
 * @returns The turn to answer with.
 * @example
 * ```ts
 * const turns: TurnFunction = (request) =>
 *   JSON.stringify(request.body).includes('tool') ? { text: 'done' } : { text: 'hello' };
 * ```
 */
export type TurnFunction = (
  request: RecordedRequest,
  index: number,
) => ScriptedTurn | Promise<ScriptedTurn>;

/**
 * Options of {@link startScriptedServer}.
 *
 * @example
 * ```ts
 * const options: ScriptedServerOptions = { turns: [{ text: 'Hi!' }], chunkSize: 2 };
 * ```
 */
export interface ScriptedServerOptions {
  /**
   * The script: a list of turns consumed one per model request, or a function of the request.
   * Turns added with `push` are used first either way.
   * @default []
   */
  turns?: ScriptedTurn[] | TurnFunction;
  /**
   * What to answer when the script runs out: `'error'` answers 500 with code
   * `script_exhausted` (and `x-should-retry: false`, so the SDK fails at once); `'echo'`
   * answers with {@link echoTurn}.
   * @default 'error'
   */
  fallback?: 'error' | 'echo';
  /**
   * Model name used when a request names none; a request's own `model` is always echoed back.
   * @default 'scripted-model'
   */
  model?: string;
  /**
   * Characters per streamed delta (text, reasoning and tool call arguments).
   * @default 4
   */
  chunkSize?: number;
  /**
   * Milliseconds to wait between streamed events, to let tests act mid-stream.
   * @default 0
   */
  chunkDelayMs?: number;
  /**
   * Port to listen on (host is always `127.0.0.1`).
   * @default 0 (an ephemeral port)
   */
  port?: number;
}

/**
 * A running scripted OpenAI-compatible server. Dispose of it with `close()` or `await using`.
 *
 * @example
 * ```ts
 * await using server = await startScriptedServer({ turns: [{ text: 'Hi!' }] });
 * const client = new OpenAI({ baseURL: server.url, apiKey: 'test' });
 * ```
 */
export interface ScriptedServer extends AsyncDisposable {
  /** Base URL for the OpenAI client, `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  /** The port the server listens on. */
  readonly port: number;
  /** Every request received since start or the last `reset()`, oldest first (a live array). */
  readonly requests: readonly RecordedRequest[];
  /**
   * Appends turns to the script; they are used before the turn function, if any.
   *
   * @param turns - Turns to append.
   */
  push(...turns: ScriptedTurn[]): void;
  /** Empties the request log and the queue of turns and restarts ids and counters. */
  reset(): void;
  /**
   * Stops listening and destroys idle and active connections.
   *
   * @returns A promise settled once the server is closed; calling it again returns the same one.
   */
  close(): Promise<void>;
}
