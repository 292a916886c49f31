import {
  type RenderTreeOptions,
  renderTree,
  type StitchedMessage,
  type StitchedToolCall,
  type StitchedTrace,
  type ToolResultBlock,
} from '@tracewarden/core';

/** Options of {@link renderViewTree}: core's, all given. */
export type ViewTreeOptions = Required<RenderTreeOptions>;

const escapeSequence = /\u001b\[[0-9;]*m/y;
const escapeSequences = /\u001b\[[0-9;]*m/g;
const reset = '\u001b[0m';
/** The width at which core cuts no value. */
const unbounded = Number.MAX_SAFE_INTEGER;
/** Core's floor on a value's width (`renderTree` shows at least this many characters). */
const minimumValueWidth = 24;

/**
 * The stitched tree of `tracewarden view`: core's `renderTree`, except that a value never
 * gives up width to its metadata. Core puts a line's metadata highlights (`[model · tokens ·
 * cost · guard · violations]`) after its value and shortens the value so both fit, so long
 * metadata left an assistant's text a few characters. Here a value is cut to the line width as
 * if there were no metadata; when the value and its metadata do not fit on one line together,
 * the metadata goes on the next line, under the value. Lines that fit are core's, unchanged;
 * `full` is core's, unchanged (it cuts nothing).
 *
 * Core has no option for this, so the layout is taken from core's own output: besides the tree,
 * it renders the trace with every value emptied, with and without metadata (which gives each
 * line's label width and metadata width), and once more wide enough that no value is cut for
 * the metadata's sake; each line that needs it is reassembled from those pieces, escape
 * sequences kept. A tree whose lines are all narrower than the width is core's, at the cost of
 * one pass over its lines.
 *
 * @param trace - a stitched trace
 * @param options - colour, line width, full values
 * @returns the tree, lines separated by `\n`, without a trailing newline
 */
export function renderViewTree(trace: StitchedTrace, options: ViewTreeOptions): string {
  const tree = renderTree(trace, options);
  if (options.full) return tree;
  const lines = tree.split('\n');
  // A line narrower than the width had no value cut and does not overflow, so it stays as it
  // is: a tree of such lines (the usual case) costs one pass over its lines, no more renders.
  const width = options.maxWidth;
  if (lines.every((line) => line.length < width || visibleLength(line) < width)) return tree;
  const bare = renderTree(emptied(trace, false), { maxWidth: unbounded }).split('\n');
  const withMetadata = renderTree(emptied(trace, true), { maxWidth: unbounded }).split('\n');
  if (bare.length !== lines.length || withMetadata.length !== lines.length) return tree;
  // the width of each line's metadata, two leading spaces included (0: none)
  const tails = withMetadata.map((line, index) => {
    const without = bare[index] ?? '';
    return line.startsWith(without) ? line.length - without.length : 0;
  });
  const widest = Math.max(...tails);
  if (widest === 0) return tree;
  // wider by the widest metadata: each value is cut, if at all, past the width it gets here
  const wide = renderTree(trace, { ...options, maxWidth: options.maxWidth + widest + 1 }).split(
    '\n',
  );
  if (wide.length !== lines.length) return tree;
  return lines
    .map((line, index) =>
      relayout(line, wide[index] ?? '', bare[index] ?? '', tails[index] ?? 0, options),
    )
    .join('\n');
}

/**
 * One line: core's when its value and metadata fit; else the value cut to the line width, and
 * the metadata on a line of its own.
 */
function relayout(
  line: string,
  wide: string,
  bare: string,
  tail: number,
  options: ViewTreeOptions,
): string {
  const branch = bare.indexOf('─ ');
  if (tail === 0 || branch < 0) return line;
  const prefix = bare.slice(0, branch + 2);
  // an emptied call still shows its closing parenthesis: `call name()`
  const valueStart = bare.length - (bare.endsWith('()') ? 1 : 0);
  const plain = wide.replace(escapeSequences, '');
  const valueLength = plain.length - valueStart - tail;
  if (valueLength < 0) return line;
  const room = Math.max(minimumValueWidth, options.maxWidth - valueStart);
  if (valueLength + tail <= room) return line;
  let head: string;
  if (valueLength <= room) {
    head = wide.slice(0, indexAfter(wide, valueStart + valueLength, true));
  } else {
    // cut as core does: `…` in the last column, never between the halves of a surrogate pair
    let end = room - 1;
    const code = plain.charCodeAt(valueStart + end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
    head = wide.slice(0, indexAfter(wide, valueStart + end, true));
    head += options.color && openColour(head) ? `…${reset}` : '…';
  }
  const metadata = wide.slice(indexAfter(wide, valueStart + valueLength + 2, false));
  const continuation = prefix.slice(0, -3) + (prefix.endsWith('└─ ') ? '   ' : '│  ');
  return `${head}\n${continuation}${' '.repeat(valueStart - prefix.length)}${metadata}`;
}

/**
 * The index in `painted` after its first `count` visible characters; with `trailing`, after the
 * escape sequences that follow them too.
 */
function indexAfter(painted: string, count: number, trailing: boolean): number {
  let index = 0;
  let seen = 0;
  for (;;) {
    if (painted.charCodeAt(index) === 0x1b) {
      escapeSequence.lastIndex = index;
      const match = escapeSequence.exec(painted);
      if (match !== null) {
        if (seen === count && !trailing) return index;
        index += match[0].length;
        continue;
      }
    }
    if (seen === count || index >= painted.length) return index;
    index++;
    seen++;
  }
}

function visibleLength(painted: string): number {
  return painted.replace(escapeSequences, '').length;
}

/** Whether the last escape sequence of `painted` starts a colour (the value's, still open). */
function openColour(painted: string): boolean {
  const last = painted.lastIndexOf('\u001b[');
  return last >= 0 && !painted.startsWith(reset, last);
}

/**
 * The trace with every value empty (same lines, labels and, with `metadata`, the same
 * highlights); without `metadata`, only `metadata.synthetic` is kept, the one key a label shows.
 */
function emptied(trace: StitchedTrace, metadata: boolean): StitchedTrace {
  const meta = (block: { metadata: Record<string, unknown> }) =>
    metadata ? block.metadata : block.metadata.synthetic === true ? { synthetic: true } : {};
  const result = (block: ToolResultBlock): ToolResultBlock => {
    const payload = block.payload;
    const empty =
      payload.output !== undefined
        ? { output: '' }
        : 'delta' in payload && payload.delta !== undefined
          ? { delta: '' }
          : {};
    return { ...block, payload: { ...payload, ...empty }, metadata: meta(block) };
  };
  const call = (node: StitchedToolCall): StitchedToolCall => ({
    block: {
      ...node.block,
      payload: { ...node.block.payload, arguments: '' },
      metadata: meta(node.block),
    },
    results: node.results.map(result),
    ...(node.output === undefined ? {} : { output: '' }),
  });
  const message = (node: StitchedMessage): StitchedMessage => ({
    block: {
      ...node.block,
      payload: { ...node.block.payload, content: '' },
      metadata: meta(node.block),
    },
    thinks: node.thinks.map((think) => ({
      ...think,
      payload: { ...think.payload, text: '' },
      metadata: meta(think),
    })),
    tool_calls: node.tool_calls.map(call),
  });
  return {
    ...trace,
    messages: trace.messages.map(message),
    orphans: {
      ...trace.orphans,
      tool_calls: trace.orphans.tool_calls.map(call),
      tool_results: trace.orphans.tool_results.map(result),
    },
  };
}
