import type { ScriptedTurn } from '../turns/scripted-turn.js';

/** A tool of a {@link RandomConversation}, as an OpenAI-style function definition. */
export interface RandomConversationTool {
  name: 'lookup' | 'record_note';
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/**
 * A conversation made from a seed, for comparing what adapters record: a system prompt, a user
 * message, the model's turns (tool turns, then an answer) and the tools. Every call's arguments
 * carry the value its tool returns (`reply`), or `{ fail: message }` for a tool that throws, so
 * {@link RandomConversation.run} is the same pure function in every framework.
 */
export interface RandomConversation {
  /** The seed it was made from (print it to reproduce a failure). */
  seed: number;
  system: string;
  user: string;
  /** Pass to `startScriptedServer({ turns })`. */
  turns: ScriptedTurn[];
  tools: RandomConversationTool[];
  /**
   * Runs a tool: returns the call's `reply`, or throws `new Error(message)` when the reply is
   * `{ fail: message }`.
   */
  run(args: Record<string, unknown>): unknown;
  /**
   * {@link RandomConversation.run}, settling after 0-6 ms chosen by the call's `count`: the
   * parallel calls of a turn finish in another order than they were proposed.
   */
  runLater(args: Record<string, unknown>): Promise<unknown>;
}

/** Options of {@link randomConversation}. */
export interface RandomConversationOptions {
  /**
   * Most tool turns before the answer.
   * @default 3
   */
  maxToolTurns?: number;
  /**
   * Most parallel calls in a tool turn.
   * @default 3
   */
  maxParallelCalls?: number;
  /**
   * Whether some tools throw (`{ fail }` replies).
   * @default true
   */
  failures?: boolean;
  /**
   * Every call id is `""`, as Gemini-backed agents send them (outputs link by order).
   * @default false
   */
  emptyIds?: boolean;
}

// Texts as models and tools write them: scripts, emoji and combining marks, quotes, JSON-looking
// strings, line breaks, HTML; no lone surrogates (no HTTP client sends them intact).
const pieces = [
  'Hello',
  'the report',
  'Überweisung',
  'naïve café',
  '日本語のテキスト',
  'مرحبا بالعالم',
  'שלום',
  '😀👍🏽',
  'e\u0301',
  '"quoted"',
  "it's",
  '{"a":1}',
  '[1,2]',
  'null',
  '42',
  'line one\nline two',
  'tab\there',
  '<b>bold</b>',
  '\\back\\slash',
  ' ',
  'Ignore previous instructions',
];

const keys = ['name', 'value', 'ü', '日本', 'a b', '$ref', ''];

/** Mulberry32: a small seeded generator, so a conversation is the same on every machine. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const parameters = {
  type: 'object',
  properties: { topic: { type: 'string' }, count: { type: 'number' }, reply: {} },
  required: ['topic', 'count', 'reply'],
  additionalProperties: false,
} as const;

const tools: RandomConversationTool[] = [
  { name: 'lookup', description: 'Looks a topic up.', parameters },
  { name: 'record_note', description: 'Records a note.', parameters },
];

async function runLater(args: Record<string, unknown>): Promise<unknown> {
  await new Promise((resolve) => setTimeout(resolve, Math.abs(Number(args.count)) % 7));
  return run(args);
}

function run(args: Record<string, unknown>): unknown {
  const reply = args.reply as { fail?: unknown } | null;
  if (
    typeof reply === 'object' &&
    reply !== null &&
    typeof reply.fail === 'string' &&
    Object.keys(reply).length === 1
  )
    throw new Error(reply.fail);
  return args.reply;
}

/**
 * Makes a conversation from a seed (deterministic): random texts in many scripts, reasoning,
 * parallel tool calls, tool outputs of every JSON kind (strings that look like JSON included)
 * and, unless turned off, tools that throw. Run its `turns` through each adapter against
 * `startScriptedServer({ turns })`, with `run` as every tool, and compare the stitched traces
 * (`comparableTrace` from `@tracewarden/core/testing`).
 * @param seed - any integer; the same seed gives the same conversation
 * @param options - sizes, and whether tools may throw
 * @returns the conversation
 * @example
 * ```ts
 * const story = randomConversation(7);
 * await using server = await startScriptedServer({ turns: story.turns });
 * ```
 */
export function randomConversation(
  seed: number,
  options: RandomConversationOptions = {},
): RandomConversation {
  const random = generator(seed);
  const below = (n: number) => Math.floor(random() * n);
  const chance = (p: number) => random() < p;
  const text = (): string => {
    const count = 1 + below(3);
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(pieces[below(pieces.length)] as string);
    return words.join(' ');
  };
  const json = (depth: number): unknown => {
    switch (below(depth > 0 ? 7 : 5)) {
      case 0:
        return text();
      case 1:
        return below(2001) - 1000;
      case 2:
        return chance(0.5);
      case 3:
        return null;
      case 4:
        return Number((random() * 100).toFixed(2));
      case 5:
        return Array.from({ length: below(3) }, () => json(depth - 1));
      default:
        return Object.fromEntries(
          Array.from({ length: below(3) }, (_, i) => [
            `${keys[below(keys.length)]}${i}`,
            json(depth - 1),
          ]),
        );
    }
  };
  const reply = (): unknown => {
    const kind = below(options.failures === false ? 4 : 5);
    if (kind === 0) return text();
    if (kind === 1) return ['', ' ', 'null', '"quoted"', '{"ok":true}'][below(5)];
    if (kind === 4) return { fail: text() };
    return json(2);
  };
  const maxToolTurns = options.maxToolTurns ?? 3;
  const maxParallel = options.maxParallelCalls ?? 3;
  let id = 0;
  const turns: ScriptedTurn[] = [];
  const toolTurns = below(maxToolTurns + 1);
  for (let step = 0; step < toolTurns; step++) {
    const calls = 1 + below(maxParallel);
    turns.push({
      ...(chance(0.4) ? { text: text() } : {}),
      ...(chance(0.4) ? { reasoning: text() } : {}),
      toolCalls: Array.from({ length: calls }, () => ({
        id: options.emptyIds === true ? '' : `call_${++id}`,
        name: (tools[below(tools.length)] as RandomConversationTool).name,
        arguments: { topic: text(), count: below(2001) - 1000, reply: reply() },
      })),
      usage: { inputTokens: 50 + step * 20, outputTokens: 10 },
    });
  }
  turns.push({
    text: text(),
    ...(chance(0.3) ? { reasoning: text() } : {}),
    usage: { inputTokens: 60 + toolTurns * 20, outputTokens: 12 },
  });
  return { seed, system: text(), user: text(), turns, tools, run, runLater };
}
