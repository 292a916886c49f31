import type { Block, ContentPart, ToolResultBlock } from '../model/index.js';
import type { StitchedMessage, StitchedToolCall, StitchedTrace } from '../stitching/types.js';
import { jsonTextOrNote } from '../text/json-text-or-note.js';

/** Options of {@link renderTree}. */
export interface RenderTreeOptions {
  /** Color with ANSI escapes (only when asked; never auto-detected here). @default false */
  color?: boolean;
  /**
   * Target line width: values are shortened with `…` so the line fits (at least 24 characters
   * of value are always shown); metadata highlights are kept, each capped at 48 characters.
   * @default 120
   */
  maxWidth?: number;
  /** Show every value in full (multi-line strings keep their lines); ignores `maxWidth`. @default false */
  full?: boolean;
}

type Paint = (code: string, text: string) => string;

interface Context {
  paint: Paint;
  full: boolean;
  maxWidth: number;
}

interface Line {
  /** Plain label before the value, e.g. `user: `. */
  label: string;
  /** Label with its colors applied. */
  painted: string;
  value: string;
  /** Color code of the value, if any. */
  valueColor?: string;
  /** Already formatted highlights, e.g. `[success · 12 ms]`, plain and painted. */
  highlights?: { plain: string; painted: string };
}

interface Node {
  line: Line;
  children: Node[];
}

const ansi = {
  reset: '\u001b[0m',
  bold: '\u001b[1m',
  dim: '\u001b[2m',
  red: '\u001b[31m',
  green: '\u001b[32m',
  yellow: '\u001b[33m',
  blue: '\u001b[34m',
  magenta: '\u001b[35m',
  cyan: '\u001b[36m',
};

const minimumValueWidth = 24;
const maximumHighlightWidth = 48;
// C0/C1 controls other than newline and tab: escaped so a tool output cannot drive the terminal.
// So are the bidirectional embeddings, overrides and isolates: a trace could use them to show text
// in another order than it holds ("Trojan Source"), e.g. an address reversed. The marks (LRM, RLM)
// that right-to-left text uses to place punctuation reorder nothing and stay.
const controlCharacters = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Renders a stitched trace as an indented tree (`├─`, `└─`): each message (`role: content`),
 * its thinks, its tool calls as `name(arguments)` with their results or assembled output, then
 * any orphans. Each line shows the block's metadata highlights when present: status, duration
 * (`execution_time_ms` / `latency_ms` / `duration_ms`), tokens (`usage`), cost, retries, guard
 * decisions (`metadata.guard` / `metadata.decisions`) and policy violations
 * (`metadata.violations`). Long values are shortened for display only, unless `full`.
 * Control characters in values are escaped, so a trace cannot inject terminal sequences.
 *
 * @param stitched - the tree from `stitchBlocks` or `tracer.stitched()`
 * @param options - color, width and full-value display
 * @returns the tree as text, lines separated by `\n`, without a trailing newline
 * @example
 * ```ts
 * console.log(renderTree(tracer.stitched(), { color: process.stdout.isTTY }));
 * // trace tr_01J...
 * // └─ user: what's the weather?
 * //    └─ call get_weather({"city":"bogotá"})
 * //       └─ result: {"forecast":"22°C cloudy"}
 * ```
 */
export function renderTree(stitched: StitchedTrace, options: RenderTreeOptions = {}): string {
  const color = options.color ?? false;
  const full = options.full ?? false;
  const maxWidth = options.maxWidth ?? 120;
  const paint: Paint = color
    ? (code, text) => `${code}${text}${ansi.reset}`
    : (_code, text) => text;
  const context: Context = { paint, full, maxWidth };

  const roots: Node[] = stitched.messages.map((message) => messageNode(message, context));
  const orphanCalls = stitched.orphans.tool_calls;
  const orphanResults = stitched.orphans.tool_results;
  if (orphanCalls.length > 0 || orphanResults.length > 0) {
    const children = [
      ...orphanCalls.map((call) => callNode(call, context, true)),
      ...orphanResults.map((result) => resultNode(result, context, true)),
    ];
    roots.push({ line: plainLine('orphans', paint(ansi.red + ansi.bold, 'orphans')), children });
  }

  const out: string[] = [
    `${paint(ansi.bold, 'trace')} ${stitched.trace_id}${roots.length === 0 ? paint(ansi.dim, ' (empty)') : ''}`,
  ];
  const emit = (node: Node, prefix: string, last: boolean): void => {
    const branch = last ? '└─ ' : '├─ ';
    const continuation = prefix + (last ? '   ' : '│  ');
    out.push(...renderLine(node.line, prefix + branch, continuation, context));
    node.children.forEach((child, index) => {
      emit(child, continuation, index === node.children.length - 1);
    });
  };
  roots.forEach((root, index) => {
    emit(root, '', index === roots.length - 1);
  });
  return out.join('\n');
}

function plainLine(label: string, painted: string): Line {
  return { label, painted, value: '' };
}

function messageNode(message: StitchedMessage, context: Context): Node {
  const paint = context.paint;
  const block = message.block;
  // a converted event keeps a role blocks cannot hold (tool, developer, ...) as
  // metadata.chat_event.role; show the event's own role, not its closest block role
  const chatEvent = block.metadata.chat_event as { role?: unknown } | null | undefined;
  const role =
    typeof chatEvent === 'object' && chatEvent !== null && typeof chatEvent.role === 'string'
      ? chatEvent.role
      : String(block.payload.role);
  const synthetic = block.metadata.synthetic === true;
  const label = `${role}${synthetic ? ' (synthetic)' : ''}: `;
  const roleColor = role === 'user' ? ansi.green : role === 'system' ? ansi.yellow : ansi.blue;
  const line: Line = {
    label,
    painted: paint(roleColor + ansi.bold, label),
    value: contentText(block.payload.content, (block.payload as { refusal?: unknown }).refusal),
    ...withHighlights(block, context),
  };
  if (block.payload.content === null || block.payload.content === undefined)
    line.valueColor = ansi.dim;

  const children: Node[] = [];
  // thinks and calls interleaved in time order, thinks first on ties
  let t = 0;
  let c = 0;
  const thinks = message.thinks;
  const calls = message.tool_calls;
  while (t < thinks.length || c < calls.length) {
    const think = thinks[t];
    const call = calls[c];
    if (think !== undefined && (call === undefined || think.created_at <= call.block.created_at)) {
      children.push({
        line: {
          label: 'think: ',
          painted: paint(ansi.magenta, 'think: '),
          value: String(think.payload.text),
          valueColor: ansi.dim,
          ...withHighlights(think, context),
        },
        children: [],
      });
      t++;
    } else if (call !== undefined) {
      children.push(callNode(call, context, false));
      c++;
    }
  }
  return { line, children };
}

function callNode(call: StitchedToolCall, context: Context, orphan: boolean): Node {
  const paint = context.paint;
  const block = call.block;
  const name = String(block.payload.name);
  const label = `${orphan ? `call (parent ${block.parent_block_id ?? 'none'}) ` : 'call '}${name}(`;
  const line: Line = {
    label,
    painted: `${paint(ansi.dim, orphan ? `call (parent ${block.parent_block_id ?? 'none'}) ` : 'call ')}${paint(ansi.cyan + ansi.bold, name)}(`,
    value: `${callArgumentsText(block.payload)})`,
    ...withHighlights(block, context),
  };
  const results = call.results;
  const deltas = results.filter(
    (result) => !('output' in result.payload) || result.payload.output === undefined,
  );
  const children = results.map((result) => resultNode(result, context, false));
  if (deltas.length > 1 && call.output !== undefined) {
    children.push({
      line: {
        label: `output (${deltas.length} deltas): `,
        painted: paint(ansi.dim, `output (${deltas.length} deltas): `),
        value: valueText(call.output),
      },
      children: [],
    });
  }
  return { line, children };
}

function resultNode(result: ToolResultBlock, context: Context, orphan: boolean): Node {
  const paint = context.paint;
  const payload = result.payload;
  const seq = typeof payload.seq === 'number' ? `#${payload.seq}` : '';
  const isDelta = payload.output === undefined && 'delta' in payload;
  const kind = `${isDelta ? 'delta' : 'result'}${seq}`;
  const label = orphan ? `${kind} (call ${payload.call_id}): ` : `${kind}: `;
  const status = result.metadata.status;
  const failed =
    typeof status === 'string'
      ? status !== 'success'
      : chatEventError(result.metadata) !== undefined;
  return {
    line: {
      label,
      painted: paint(failed ? ansi.red : ansi.dim, label),
      value: isDelta ? valueText(payload.delta) : outputText(payload.output),
      ...withHighlights(result, context),
    },
    children: [],
  };
}

/**
 * A message's text: its content, else the model's refusal (`refusal`), else `(no content)` (for
 * `null`, an absent content and an empty list of parts alike).
 */
function contentText(content: unknown, refusal?: unknown): string {
  if (content === null || content === undefined || (Array.isArray(content) && content.length === 0))
    return typeof refusal === 'string' && refusal !== '' ? `(refused) ${refusal}` : '(no content)';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: ContentPart) => {
        if (part.type === 'text' && typeof part.text === 'string') return part.text;
        return partLabel(part);
      })
      .join(' ');
  }
  return valueText(content);
}

/**
 * A content part that is not text, by its type and what names it: a search result's title and
 * URL, a file's name or id (`[web_search_result: Paris weather https://…]`), else its type alone.
 */
function partLabel(part: ContentPart): string {
  const record = part as unknown as Record<string, unknown>;
  const names: string[] = [];
  for (const key of ['title', 'name', 'url', 'uri', 'filename', 'file_id'])
    if (typeof record[key] === 'string' && record[key] !== '') names.push(record[key] as string);
  return names.length === 0 ? `[${part.type}]` : `[${part.type}: ${names.join(' ')}]`;
}

/**
 * A tool output as a result line shows it: content parts (an MCP tool's or an Anthropic
 * `tool_result`'s `[{ type: 'text', text }]`) as message content is shown, anything else as JSON.
 */
function outputText(output: unknown): string {
  return Array.isArray(output) &&
    output.length > 0 &&
    output.every(
      (part) => typeof part === 'object' && part !== null && typeof part.type === 'string',
    )
    ? contentText(output)
    : valueText(output);
}

/**
 * A call's arguments as `name(...)` shows them: a seed-004 entry's positional `args` first, each
 * as JSON, then the keyword arguments (an entry's `kwargs`).
 */
function callArgumentsText(payload: Record<string, unknown>): string {
  const keywords = valueText(payload.arguments);
  const positional = payload.args;
  if (!Array.isArray(positional) || positional.length === 0) return keywords;
  const shown = positional.map((value) =>
    typeof value === 'string' ? JSON.stringify(value) : valueText(value),
  );
  const hasKeywords =
    payload.arguments !== null &&
    typeof payload.arguments === 'object' &&
    Object.keys(payload.arguments).length > 0;
  return hasKeywords ? `${shown.join(', ')}, ${keywords}` : shown.join(', ');
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return jsonTextOrNote(value);
}

function renderLine(line: Line, first: string, continuation: string, context: Context): string[] {
  const { paint, full, maxWidth } = context;
  const highlights = line.highlights;
  const tail = highlights === undefined ? '' : `  ${highlights.painted}`;
  const tailWidth = highlights === undefined ? 0 : highlights.plain.length + 2;
  const valueColor = line.valueColor;
  const show = (text: string) => (valueColor === undefined ? text : paint(valueColor, text));
  if (full) {
    const pieces = escapeControls(line.value).split('\n');
    const pad = ' '.repeat(line.label.length);
    return pieces.map((piece, index) =>
      index === 0
        ? `${first}${line.painted}${show(piece)}${index === pieces.length - 1 ? tail : ''}`
        : `${continuation}${pad}${show(piece)}${index === pieces.length - 1 ? tail : ''}`,
    );
  }
  const compact = escapeControls(line.value).replace(/\n/g, '\\n').replace(/\t/g, '\\t');
  const room = Math.max(minimumValueWidth, maxWidth - first.length - line.label.length - tailWidth);
  return [`${first}${line.painted}${show(truncate(compact, room))}${tail}`];
}

function escapeControls(text: string): string {
  return text.replace(
    controlCharacters,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function truncate(text: string, room: number): string {
  if (text.length <= room) return text;
  let end = room - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
  return `${text.slice(0, end)}…`;
}

function withHighlights(
  block: Block,
  context: Context,
): { highlights?: NonNullable<Line['highlights']> } {
  const paint = context.paint;
  const parts = metadataHighlights(block.metadata).map((part) => {
    const text = escapeControls(part.text).replace(/\n/g, '\\n');
    return { text: context.full ? text : truncate(text, maximumHighlightWidth), color: part.color };
  });
  if (parts.length === 0) return {};
  const plain = `[${parts.map((part) => part.text).join(' · ')}]`;
  const painted = `${paint(ansi.dim, '[')}${parts
    .map((part) => paint(part.color, part.text))
    .join(paint(ansi.dim, ' · '))}${paint(ansi.dim, ']')}`;
  return { highlights: { plain, painted } };
}

interface Highlight {
  text: string;
  color: string;
}

/**
 * The error a chat-event tool output carried in its own `error` field (AgentDojo's run files:
 * `"content": "", "error": "ValidationError: ..."`; Inspect AI's logs: `"error": { "type",
 * "message" }`), kept by `eventsToBlocks` in `metadata.chat_event`; `undefined` when there is
 * none.
 * @internal
 */
export function chatEventError(metadata: Record<string, unknown>): string | undefined {
  const event = metadata.chat_event;
  if (typeof event !== 'object' || event === null) return undefined;
  const error = (event as Record<string, unknown>).error;
  // tau2-bench's tool messages: `error: true`, the content is the error's text
  if (error === true) return 'error';
  if (typeof error === 'object' && error !== null) {
    const message = (error as Record<string, unknown>).message;
    return typeof message === 'string' && message !== '' ? message : undefined;
  }
  return typeof error === 'string' && error !== '' ? error : undefined;
}

/** @internal The highlights shown for a block's metadata, in display order. */
function metadataHighlights(metadata: Record<string, unknown>): Highlight[] {
  const parts: Highlight[] = [];
  const status = metadata.status;
  if (typeof status === 'string') {
    parts.push({ text: status, color: status === 'success' ? ansi.green : ansi.red });
  }
  const failure = errorText(metadata.error ?? metadata.exception ?? chatEventError(metadata));
  // when the output already is the exception message, the type alone is enough
  if (failure !== undefined && metadata.output_source === 'exception') {
    if (typeof metadata.exception_type === 'string') {
      parts.push({ text: metadata.exception_type, color: ansi.red });
    }
  } else if (failure !== undefined) {
    const type = typeof metadata.exception_type === 'string' ? `${metadata.exception_type}: ` : '';
    parts.push({ text: `${type}${failure}`, color: ansi.red });
  }
  if (typeof metadata.model === 'string') parts.push({ text: metadata.model, color: ansi.dim });
  const duration = firstNumber(
    metadata.execution_time_ms,
    metadata.latency_ms,
    metadata.duration_ms,
  );
  if (duration !== undefined) parts.push({ text: formatDuration(duration), color: ansi.yellow });
  const tokens = tokenText(metadata.usage);
  if (tokens !== undefined) parts.push({ text: tokens, color: ansi.yellow });
  const cost = costValue(metadata.cost ?? metadata.cost_usd);
  if (cost !== undefined) parts.push({ text: `$${formatCost(cost)}`, color: ansi.yellow });
  const retries = metadata.retry_count;
  if (typeof retries === 'number' && retries > 0) {
    parts.push({ text: `${retries} ${retries === 1 ? 'retry' : 'retries'}`, color: ansi.yellow });
  }
  const guardRecord = metadata.guard;
  // guards record `{ attempts, decisions }`; model calls record `decisions` directly
  const guard =
    typeof guardRecord === 'object' && guardRecord !== null && !Array.isArray(guardRecord)
      ? ((guardRecord as Record<string, unknown>).decisions ?? guardRecord)
      : (guardRecord ?? metadata.decisions);
  if (guard !== undefined && guard !== null && !(Array.isArray(guard) && guard.length === 0)) {
    parts.push({ text: `guard ${summarize(guard, decisionText)}`, color: ansi.magenta });
  }
  // a call the policy stopped before it ran (a refused one's result says so too)
  if (metadata.policy === 'block') parts.push({ text: 'blocked by policy', color: ansi.red });
  const violations = metadata.violations;
  if (Array.isArray(violations) && violations.length > 0) {
    const count = `${violations.length} violation${violations.length === 1 ? '' : 's'}`;
    parts.push({ text: `⚠ ${count}: ${summarize(violations, violationText)}`, color: ansi.red });
  }
  return parts;
}

function firstNumber(...values: unknown[]): number | undefined {
  for (const value of values) if (typeof value === 'number' && Number.isFinite(value)) return value;
  return undefined;
}

function formatDuration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function formatCost(cost: number): string {
  if (cost === 0) return '0';
  if (cost >= 0.01) return cost.toFixed(4).replace(/0+$/, '').replace(/\.$/, '');
  return cost.toPrecision(2);
}

function costValue(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return firstNumber(record.cost_usd, record.total, record.total_cost, record.usd, record.amount);
  }
  return undefined;
}

function tokenText(usage: unknown): string | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const input = firstNumber(u.prompt_tokens, u.input_tokens, u.inputTokens, u.promptTokens);
  const output = firstNumber(
    u.completion_tokens,
    u.output_tokens,
    u.outputTokens,
    u.completionTokens,
  );
  const total =
    firstNumber(u.total_tokens, u.totalTokens) ??
    (input !== undefined || output !== undefined ? (input ?? 0) + (output ?? 0) : undefined);
  if (total === undefined) return undefined;
  return input !== undefined && output !== undefined
    ? `${total} tok (${input} in / ${output} out)`
    : `${total} tok`;
}

function errorText(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'object' && value !== null) {
    const message = (value as Record<string, unknown>).message;
    if (typeof message === 'string') return message;
  }
  return undefined;
}

function summarize(value: unknown, item: (value: unknown) => string): string {
  if (Array.isArray(value)) return value.map(item).join(', ');
  return item(value);
}

function pick(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      return String(value);
    }
  }
  return undefined;
}

function decisionText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const record = value as Record<string, unknown>;
  const name = pick(record, ['guard', 'name', 'type', 'kind']);
  const action = pick(record, ['event', 'action', 'decision', 'outcome', 'status', 'state', 'to']);
  if (name !== undefined || action !== undefined) {
    return [name, action].filter((part) => part !== undefined).join('→');
  }
  return shortJson(value);
}

function violationText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const record = value as Record<string, unknown>;
  return pick(record, ['message', 'rule', 'policy', 'name', 'code']) ?? shortJson(value);
}

function shortJson(value: unknown): string {
  return truncate(valueText(value), 60);
}
