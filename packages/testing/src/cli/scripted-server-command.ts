import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { startScriptedServer } from '../server/index.js';
import type { ScriptedTurn } from '../turns/index.js';

/** Where the command writes, and what stops it. */
export interface ScriptedServerCommandIo {
  out(text: string): void;
  err(text: string): void;
  /** Aborted to stop the server (Ctrl-C in the bin). */
  signal: AbortSignal;
}

/** Exit codes: 0 stopped, 2 a usage error (bad option, unreadable script, port taken). */
const usageError = 2;

const help = `Usage: tracewarden-scripted-server [options]

Starts the scripted OpenAI-compatible server of @tracewarden/testing on 127.0.0.1 and keeps it
running until Ctrl-C, so any OpenAI client (any language) can talk to it without an API key or
the network. It answers POST /v1/chat/completions and /v1/responses (streamed or not) from a
script of turns, then, by default, echoes the last user message back.

Options:
  --port <port>          port to listen on (default: 4010; 0 for any free port)
  --script <file>        a JSON file of turns: an array, or { "turns": [...] }; each turn like
                         { "text": "..." }, { "toolCalls": [{ "name": "...", "arguments": {} }] },
                         { "fault": 429 } (see the package README)
  --fallback <mode>      when the script runs out: echo (default) or error (500)
  --model <name>         model named when a request names none (default: scripted-model)
  --chunk-size <chars>   characters per streamed delta (default: 4)
  --chunk-delay-ms <ms>  milliseconds between streamed events (default: 0)
  -h, --help             print this help

Then point a client at it:
  OPENAI_BASE_URL=http://127.0.0.1:4010/v1 OPENAI_API_KEY=any node your-agent.mjs
`;

/** A whole number option within bounds, or a message saying what to fix. */
function wholeNumber(name: string, value: string | undefined, fallback: number, max: number) {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed > max)
    throw new UsageError(`--${name} must be a whole number from 0 to ${max}, got "${value}"`);
  return parsed;
}

class UsageError extends Error {}

/** The turns of a script file: a JSON array of turn objects, or `{ "turns": [...] }`. */
async function readScript(path: string): Promise<ScriptedTurn[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read the script ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the script ${path} is not JSON: ${(error as Error).message}`);
  }
  const turns =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as { turns?: unknown }).turns
      : value;
  if (!Array.isArray(turns))
    throw new UsageError(
      `the script ${path} must be a JSON array of turns, or an object with a "turns" array`,
    );
  turns.forEach((turn, index) => {
    if (typeof turn !== 'object' || turn === null || Array.isArray(turn))
      throw new UsageError(
        `turn ${index} of the script ${path} must be an object such as { "text": "Hi" }, got ${JSON.stringify(turn)}`,
      );
  });
  return turns as ScriptedTurn[];
}

/**
 * Runs `tracewarden-scripted-server`: starts the scripted OpenAI-compatible server with the
 * options in `argv` and keeps it running until `io.signal` aborts.
 * @param argv - the command's arguments (after the program name)
 * @param io - output, and the signal that stops the server
 * @returns the exit code: 0 once stopped, 2 for a usage error
 * @example
 * ```ts
 * const stop = new AbortController();
 * const done = runScriptedServerCommand(['--port', '0'], {
 *   out: (text) => process.stdout.write(text),
 *   err: (text) => process.stderr.write(text),
 *   signal: stop.signal,
 * });
 * stop.abort(); // later: the server closes and `done` resolves to 0
 * ```
 */
export async function runScriptedServerCommand(
  argv: readonly string[],
  io: ScriptedServerCommandIo,
): Promise<number> {
  let server: Awaited<ReturnType<typeof startScriptedServer>>;
  let described: string;
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string' },
        script: { type: 'string' },
        fallback: { type: 'string' },
        model: { type: 'string' },
        'chunk-size': { type: 'string' },
        'chunk-delay-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help === true) {
      io.out(help);
      return 0;
    }
    const fallback = values.fallback ?? 'echo';
    if (fallback !== 'echo' && fallback !== 'error')
      throw new UsageError(`--fallback must be echo or error, got "${fallback}"`);
    const turns = values.script === undefined ? [] : await readScript(values.script);
    const chunkSize = wholeNumber('chunk-size', values['chunk-size'], 4, 1_000_000);
    if (chunkSize === 0) throw new UsageError('--chunk-size must be at least 1');
    try {
      server = await startScriptedServer({
        turns,
        fallback,
        port: wholeNumber('port', values.port, 4010, 65_535),
        chunkSize,
        chunkDelayMs: wholeNumber('chunk-delay-ms', values['chunk-delay-ms'], 0, 60_000),
        ...(values.model === undefined ? {} : { model: values.model }),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(
        code === 'EADDRINUSE'
          ? `port ${values.port ?? 4010} is taken: choose another with --port (0 for any free port)`
          : `the server could not start: ${(error as Error).message}`,
      );
    }
    described =
      turns.length === 0
        ? `no script: every request is ${fallback === 'echo' ? 'echoed back' : 'answered 500'}`
        : `${turns.length} scripted turn${turns.length === 1 ? '' : 's'} from ${values.script}, then ${fallback === 'echo' ? 'echo' : 'a 500 error'}`;
  } catch (error) {
    if (
      error instanceof UsageError ||
      (error as { code?: unknown }).code?.toString().startsWith('ERR_PARSE_ARGS')
    ) {
      io.err(
        `tracewarden-scripted-server: ${(error as Error).message}\nRun with --help for the options.\n`,
      );
      return usageError;
    }
    throw error;
  }
  io.out(
    `scripted OpenAI-compatible server on ${server.url} (${described})\n` +
      `  OPENAI_BASE_URL=${server.url} OPENAI_API_KEY=any\n` +
      'Ctrl-C stops it.\n',
  );
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.close();
  io.out(
    `stopped after ${server.requests.length} request${server.requests.length === 1 ? '' : 's'}\n`,
  );
  return 0;
}
