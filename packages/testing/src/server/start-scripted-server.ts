import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildChatCompletion } from '../chat/build-chat-completion.js';
import { buildChatCompletionChunks } from '../chat/build-chat-completion-chunks.js';
import { formatServerSentEvent } from '../http/format-server-sent-event.js';
import { faultErrorBody, openAIErrorBody } from '../http/openai-error-body.js';
import { redactHeaders } from '../http/redact-headers.js';
import { buildResponse } from '../responses/build-response.js';
import { buildResponseEvents } from '../responses/build-response-events.js';
import { echoTurn } from '../turns/echo-turn.js';
import type { Fault } from '../turns/fault.js';
import { type PlannedReply, planReply } from '../turns/plan-reply.js';
import type { ScriptedTurn } from '../turns/scripted-turn.js';
import type { RecordedRequest } from './recorded-request.js';
import type { ScriptedServer, ScriptedServerOptions, TurnFunction } from './scripted-server.js';

type ModelApi = 'chat' | 'responses';

/**
 * Starts a scripted OpenAI-compatible HTTP server on `127.0.0.1`. It answers
 * `POST /v1/chat/completions` and `POST /v1/responses` (streaming or not) from a script of turns,
 * can inject faults (error statuses, a slow first byte, a connection dropped mid-stream) and
 * records every request it receives.
 *
 * @param options - The script and settings; see {@link ScriptedServerOptions}.
 * @returns The running server, once it listens.
 * @example
 * ```ts
 * await using server = await startScriptedServer({ turns: [{ fault: 429 }, { text: 'Hi!' }] });
 * const client = new OpenAI({ baseURL: server.url, apiKey: 'test' });
 * const completion = await client.chat.completions.create({
 *   model: 'gpt-4o-mini',
 *   messages: [{ role: 'user', content: 'Hello' }],
 * });
 * completion.choices[0]?.message.content; // 'Hi!' (after one retry)
 * ```
 */
export async function startScriptedServer(
  options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  const turnFunction: TurnFunction | undefined =
    typeof options.turns === 'function' ? options.turns : undefined;
  const queue: ScriptedTurn[] = Array.isArray(options.turns) ? [...options.turns] : [];
  const defaultModel = options.model ?? 'scripted-model';
  const chunkSize = Math.max(1, Math.floor(options.chunkSize ?? 4));
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let requestCount = 0;
  let modelRequestCount = 0;
  let callCount = 0;
  let closing: Promise<void> | undefined;

  const delay = (milliseconds: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, milliseconds);
      timers.add(timer);
    });

  const nextTurn = async (
    request: RecordedRequest,
    index: number,
  ): Promise<ScriptedTurn | undefined> => {
    const queued = queue.shift();
    if (queued) return queued;
    if (turnFunction) return turnFunction(request, index);
    if (options.fallback === 'echo') return echoTurn(request);
    return undefined;
  };

  const answerModelRequest = async (
    api: ModelApi,
    record: RecordedRequest,
    requestNumber: number,
    response: ServerResponse,
  ): Promise<void> => {
    const body = record.body;
    if (body === undefined) {
      sendJson(
        response,
        400,
        openAIErrorBody(
          `We could not parse the JSON body of your request: send a JSON object (got ${JSON.stringify(record.rawBody.slice(0, 80))}).`,
          'invalid_request_error',
          null,
          'invalid_json',
        ),
      );
      return;
    }
    if (body.n !== undefined && body.n !== null && body.n !== 1) {
      sendJson(
        response,
        400,
        openAIErrorBody(
          `The scripted server supports only n: 1 (got n: ${JSON.stringify(body.n)}).`,
          'invalid_request_error',
          'n',
          'unsupported_value',
        ),
      );
      return;
    }
    if (api === 'chat' && !Array.isArray(body.messages)) {
      sendJson(
        response,
        400,
        openAIErrorBody(
          "Missing required parameter: 'messages' must be an array of messages.",
          'invalid_request_error',
          'messages',
          'missing_required_parameter',
        ),
      );
      return;
    }

    const index = modelRequestCount++;
    let turn: ScriptedTurn | undefined;
    try {
      turn = await nextTurn(record, index);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      sendJson(
        response,
        500,
        openAIErrorBody(
          `The scripted turn function threw on model request ${index} (${record.path}): ${message}`,
          'server_error',
          null,
          'turn_function_failed',
        ),
        { 'x-should-retry': 'false' },
      );
      return;
    }
    if (turn === undefined) {
      sendJson(
        response,
        500,
        openAIErrorBody(
          `The scripted server's script is exhausted: model request ${index} (${record.method} ${record.path}, ${record.requestId}) has no turn. Add turns with server.push(...) or pass fallback: 'echo'.`,
          'server_error',
          null,
          'script_exhausted',
        ),
        { 'x-should-retry': 'false' },
      );
      return;
    }

    const fault = normalizeFault(turn.fault);
    if (fault?.type === 'slow-first-byte') await delay(fault.delayMs);
    if (response.destroyed) return;
    if (fault?.type === 'status') {
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) {
        headers['retry-after'] = String(Math.ceil(fault.retryAfter));
        headers['retry-after-ms'] = String(fault.retryAfter * 1000);
      }
      sendJson(response, fault.status, fault.body ?? faultErrorBody(fault.status), headers);
      return;
    }

    const model = typeof body.model === 'string' && body.model !== '' ? body.model : defaultModel;
    const promptText = JSON.stringify(
      api === 'chat' ? [body.messages, body.tools] : [body.instructions, body.input, body.tools],
    );
    const reply = planReply(turn, {
      requestNumber,
      model,
      promptText,
      chunkSize,
      nextCallId: () => `call_scripted${++callCount}`,
    });
    const dropAfter = fault?.type === 'drop-mid-stream' ? fault.afterChunks : undefined;
    if (body.stream === true) {
      await streamReply(api, reply, body, response, dropAfter);
    } else {
      const payload =
        api === 'chat' ? buildChatCompletion(reply) : buildResponse(reply, body, 'final');
      if (dropAfter === undefined) {
        sendJson(response, 200, payload);
      } else {
        const text = JSON.stringify(payload);
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        });
        await write(response, text.slice(0, Math.floor(text.length / 2)));
        response.destroy();
      }
    }
  };

  const streamReply = async (
    api: ModelApi,
    reply: PlannedReply,
    body: Record<string, unknown>,
    response: ServerResponse,
    dropAfter: number | undefined,
  ): Promise<void> => {
    const events: string[] =
      api === 'chat'
        ? [
            ...buildChatCompletionChunks(reply, includeUsage(body)).map((chunk) =>
              formatServerSentEvent(chunk),
            ),
            formatServerSentEvent('[DONE]'),
          ]
        : buildResponseEvents(reply, body).map((event) => formatServerSentEvent(event, event.type));
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    });
    const limit = dropAfter ?? events.length;
    for (const [position, event] of events.slice(0, limit).entries()) {
      if (response.destroyed) return;
      if (chunkDelayMs > 0 && position > 0) await delay(chunkDelayMs);
      if (response.destroyed) return;
      response.write(event);
    }
    if (dropAfter === undefined) {
      response.end();
      return;
    }
    // An SSE comment (ignored by clients) whose write callback tells us the events before it
    // (and the headers) left the process, so the client sees a cut body, not a refused request.
    await write(response, ': scripted connection drop\n\n');
    response.destroy();
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const requestNumber = ++requestCount;
    const requestId = `req_${requestNumber}`;
    const rawBody = await readBody(request);
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const method = request.method ?? 'GET';
    const record: RecordedRequest = {
      requestId,
      method,
      path,
      headers: redactHeaders(request.headers),
      body: parseJsonObject(rawBody),
      rawBody,
      time: Date.now(),
    };
    requests.push(record);
    response.setHeader('x-request-id', requestId);

    if (method === 'POST' && path === '/v1/chat/completions') {
      await answerModelRequest('chat', record, requestNumber, response);
    } else if (method === 'POST' && path === '/v1/responses') {
      await answerModelRequest('responses', record, requestNumber, response);
    } else if (method === 'GET' && path === '/v1/models') {
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: defaultModel, object: 'model', created: 0, owned_by: 'tracewarden' }],
      });
    } else {
      sendJson(
        response,
        404,
        openAIErrorBody(
          `Invalid URL (${method} ${path}): the scripted server answers POST /v1/chat/completions, POST /v1/responses and GET /v1/models.`,
          'invalid_request_error',
          null,
          'unknown_url',
        ),
      );
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // A bug in the server itself: answer loudly instead of hanging the client.
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      sendJson(
        response,
        500,
        openAIErrorBody(`The scripted server failed: ${message}`, 'server_error'),
        { 'x-should-retry': 'false' },
      );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve, reject) => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
    return closing;
  };

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    push: (...turns) => {
      queue.push(...turns);
    },
    reset: () => {
      requests.length = 0;
      queue.length = 0;
      requestCount = 0;
      modelRequestCount = 0;
      callCount = 0;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

function normalizeFault(fault: Fault | undefined): Exclude<Fault, number> | undefined {
  return typeof fault === 'number' ? { type: 'status', status: fault } : fault;
}

function includeUsage(body: Record<string, unknown>): boolean {
  const streamOptions = body.stream_options;
  return (
    typeof streamOptions === 'object' &&
    streamOptions !== null &&
    (streamOptions as Record<string, unknown>).include_usage === true
  );
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (text === '') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function write(response: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => {
    response.write(text, () => resolve());
  });
}
