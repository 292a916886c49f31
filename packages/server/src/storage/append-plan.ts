import { type Block, blockFieldNames, createBlockValidator, TraceError } from '@tracewarden/core';
import { ServerError } from '../errors/index.js';
import { checkBlockFields } from './check-block-fields.js';
import { checkPayloadTotal } from './check-payload-total.js';
import type { AppendBlocksOptions } from './store.js';
import { type BlocksSummary, isEarlier, summarizeBlocks } from './summarize-blocks.js';

/**
 * What appending a batch must read from the database, asked by {@link planAppend} one query at a
 * time; each store answers with its own SQL (synchronously for SQLite, awaited for Postgres), so
 * the rules live once and the stores only fetch and write.
 * - `blocks`: the trace's stored blocks with these ids.
 * - `context`: blocks with an id in `parentIds`, TOOL_CALLs with a call id in `callIds`, and
 *   TOOL_RESULTs that have a seq with a call id in `resultCallIds`.
 * - `trace`: the trace's row ({@link TraceState}), or undefined.
 * @internal
 */
export type AppendQuery =
  | { kind: 'blocks'; ids: string[] }
  | { kind: 'context'; parentIds: string[]; callIds: string[]; resultCallIds: string[] }
  | { kind: 'trace' };

/** The columns of a trace's row that appending reads. @internal */
export interface TraceState {
  block_count: number;
  first_user_message_at: string | null;
  first_user_message_block: string | null;
}

/** One `trace_blocks` row to insert: the block's constraint columns and its JSON body. @internal */
export interface BlockRow {
  id: string;
  block_type: string;
  sub_type: string;
  parent_block_id: string | null;
  parent_sub_type: string | null;
  call_id: string | null;
  result_seq: number | null;
  created_at: string;
  updated_at: string;
  body: string;
}

/** What to write for a batch (nothing when `rows` is empty: every block was already stored). @internal */
export interface AppendPlan {
  /** Every block of the batch as stored, in the batch's order. */
  results: Block[];
  /** `results` as a JSON array (each new block serialised once, for its row and the answer). */
  resultsJson: string;
  /** New rows, parents before children. */
  rows: BlockRow[];
  /** What the new rows add to the trace's row. */
  summary: BlocksSummary;
  /** The trace's new first user message, when the batch holds an earlier one. */
  firstUserMessage: BlocksSummary['firstUserMessage'];
}

/** Children after parents: a valid batch in this order always names earlier blocks as parents. */
const rank: Readonly<Record<string, number>> = {
  MESSAGE: 0,
  TOOL_CALL: 1,
  THINK: 2,
  TOOL_RESULT: 3,
};

function rankOf(input: unknown): number {
  if (typeof input !== 'object' || input === null) return -1;
  return rank[(input as { sub_type?: unknown }).sub_type as string] ?? -1;
}

/** @internal */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted, so equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) =>
      isRecord(item)
        ? Object.fromEntries(
            Object.keys(item)
              .sort()
              .map((key) => [key, item[key]]),
          )
        : item,
    ) ?? 'undefined'
  );
}

/** A block's fields but its id: what a re-sent block is compared on. */
const comparedFields = blockFieldNames.filter(
  (name): name is Exclude<(typeof blockFieldNames)[number], 'id'> => name !== 'id',
);
const absentMeans: Readonly<Record<string, unknown>> = {
  parent_block_id: null,
  metadata: {},
  raw: null,
  extra: {},
};

/**
 * Whether a re-sent block is the stored one: every field it gives equals the stored field
 * (fields it leaves out were filled in by the collector: `created_at`, `updated_at`,
 * `block_type`; the others take their defaults).
 */
function sameContent(input: Record<string, unknown>, stored: Block): boolean {
  for (const field of comparedFields) {
    let value = input[field];
    if (value === undefined) {
      if (!(field in absentMeans)) continue;
      value = absentMeans[field];
    }
    if (canonical(value) !== canonical((stored as unknown as Record<string, unknown>)[field])) {
      return false;
    }
  }
  return true;
}

/**
 * The same trace error, saying which block of the batch it is about (`details.path`), when the
 * batch has several: the error of a one-block request is seed 002's body exactly (its example
 * names no position). A block the client sent without an id is named by its position, not by the
 * id the collector drew for it (the batch is refused: that id names nothing).
 */
function atIndex(
  error: unknown,
  index: number,
  drawnId: string | undefined,
  batchSize: number,
): unknown {
  if (!(error instanceof TraceError)) return error;
  const details: Record<string, unknown> =
    batchSize > 1 ? { ...error.details, path: String(index) } : { ...error.details };
  let message = error.message;
  if (drawnId !== undefined) {
    if (details.block_id === drawnId) delete details.block_id;
    message = message.split(`block ${drawnId}`).join(`block ${index} of the batch`);
  }
  return new TraceError({ code: error.code, message, details, cause: error.cause });
}

/** A stored block's row, as the stores select it: its JSON body. @internal */
export function parseBody(body: unknown): Block {
  return JSON.parse(body as string) as Block;
}

/**
 * Validates a batch with core's validator against the stored blocks it needs, asking for them
 * with {@link AppendQuery}s; returns what to write. Blocks without an `id` get a `tb_...` id,
 * blocks without `trace_id` the trace's; core fills in `created_at` / `updated_at`. A block whose
 * id is stored with the same content is left as is (a retried batch is a no-op); with other
 * content the batch fails. Run it inside the store's transaction (and lock, for Postgres).
 * @throws core's `TraceError` (with `details.path`, the block's index) for any rule broken
 * @internal
 */
export function* planAppend(
  traceId: string,
  inputs: readonly unknown[],
  options: AppendBlocksOptions,
): Generator<AppendQuery, AppendPlan, unknown> {
  const results: Block[] = new Array(inputs.length);
  const prepared = inputs.map((input, index) => {
    if (!isRecord(input)) return { input, clientId: undefined, drawnId: undefined };
    checkBlockFields(input, traceId, index, inputs.length);
    const copy: Record<string, unknown> = { ...input };
    const clientId = typeof copy.id === 'string' && copy.id !== '' ? copy.id : undefined;
    let drawnId: string | undefined;
    if (copy.id === undefined) {
      drawnId = options.ids.blockId();
      copy.id = drawnId;
    }
    if (copy.trace_id === undefined) copy.trace_id = traceId;
    return { input: copy, clientId, drawnId };
  });
  // a trace not stored yet has no blocks to compare with or to build on: one query, not three
  const trace = (yield { kind: 'trace' }) as TraceState | undefined;
  const clientIds =
    trace === undefined || trace.block_count === 0
      ? []
      : [
          ...new Set(
            prepared.flatMap((item) => (item.clientId === undefined ? [] : [item.clientId])),
          ),
        ];
  const storedList =
    clientIds.length === 0 ? [] : ((yield { kind: 'blocks', ids: clientIds }) as Block[]);
  const stored = new Map(storedList.map((block) => [block.id, block]));
  const fresh: { index: number; input: unknown; drawnId: string | undefined }[] = [];
  prepared.forEach((item, index) => {
    const existing = item.clientId === undefined ? undefined : stored.get(item.clientId);
    if (existing === undefined) {
      fresh.push({ index, input: item.input, drawnId: item.drawnId });
    } else if (sameContent(item.input as Record<string, unknown>, existing)) {
      results[index] = existing;
    } else {
      throw new TraceError({
        code: 'VALIDATION',
        message: `block ${existing.id} is already stored in trace ${traceId} with other content; blocks are immutable: re-send it unchanged, or give the new block its own id`,
        details: {
          field: 'id',
          block_id: existing.id,
          trace_id: traceId,
          sub_type: existing.sub_type,
          // the block's position, when the batch has several (a one-block request's error is
          // seed 002's body exactly)
          ...(prepared.length > 1 ? { path: String(index) } : {}),
        },
      });
    }
  });
  const empty = summarizeBlocks([]);
  if (fresh.length === 0) {
    return {
      results,
      resultsJson: JSON.stringify(results),
      rows: [],
      summary: empty,
      firstUserMessage: undefined,
    };
  }

  const count = trace?.block_count ?? 0;
  if (count + fresh.length > options.maxTraceBlocks) {
    throw new TraceError({
      code: 'PAYLOAD_TOO_LARGE',
      message: `trace ${traceId} would hold ${count + fresh.length} blocks, over the limit of ${options.maxTraceBlocks} per trace (TRACEWARDEN_MAX_TRACE_BLOCKS); start a new trace`,
      details: {
        field: 'blocks',
        trace_id: traceId,
        limit_blocks: options.maxTraceBlocks,
        actual_blocks: count + fresh.length,
      },
    });
  }

  const validator = createBlockValidator({ traceId, limits: options.blockLimits });
  const freshInputs = fresh.flatMap((item) => (isRecord(item.input) ? [item.input] : []));
  // only a trace with stored blocks has context to load
  const context = trace === undefined || count === 0 ? [] : yield* contextOf(freshInputs);
  for (const block of context) {
    try {
      validator.accept(standIn(block));
    } catch (cause) {
      throw new ServerError({
        code: 'INTERNAL',
        message: `stored block ${block.id} of trace ${traceId} no longer passes validation; the store holds a block the collector would not have written`,
        cause,
      });
    }
  }
  const ordered = parentsFirst(fresh);
  const accepted: Block[] = [];
  const rows: BlockRow[] = [];
  const texts: string[] = new Array(inputs.length);
  for (const item of ordered) {
    let block: Block;
    try {
      block = validator.accept(item.input);
      checkPayloadTotal(block, options.blockLimits);
    } catch (error) {
      throw atIndex(
        inBatchMismatch(error, item.input, fresh),
        item.index,
        item.drawnId,
        inputs.length,
      );
    }
    results[item.index] = block;
    accepted.push(block);
    const body = JSON.stringify(block);
    texts[item.index] = body;
    const payload = block.payload as { call_id?: unknown; seq?: unknown };
    const parent = block.parent_block_id;
    rows.push({
      id: block.id,
      block_type: block.block_type,
      sub_type: block.sub_type,
      parent_block_id: parent,
      parent_sub_type: parent === null ? null : (validator.get(parent)?.sub_type ?? null),
      call_id: typeof payload.call_id === 'string' ? payload.call_id : null,
      result_seq:
        block.sub_type === 'TOOL_RESULT' && typeof payload.seq === 'number' ? payload.seq : null,
      created_at: block.created_at,
      updated_at: block.updated_at,
      body,
    });
  }
  const summary = summarizeBlocks(accepted);
  const first = summary.firstUserMessage;
  const currentAt = trace?.first_user_message_at ?? null;
  const replaces =
    first !== undefined &&
    (currentAt === null ||
      isEarlier(first, {
        createdAt: currentAt,
        blockId: trace?.first_user_message_block as string,
      }));
  for (let index = 0; index < results.length; index++) {
    texts[index] ??= JSON.stringify(results[index]);
  }
  return {
    results,
    resultsJson: `[${texts.join(',')}]`,
    rows,
    summary,
    firstUserMessage: replaces ? first : undefined,
  };
}

/** The sub type a block's parent must have (seed 002), or undefined for a MESSAGE. */
const parentSubTypeOf: Readonly<Record<string, string>> = {
  TOOL_CALL: 'MESSAGE',
  THINK: 'MESSAGE',
  TOOL_RESULT: 'TOOL_CALL',
};

/**
 * A parent "not accepted before" that is in the batch: its link is part of a cycle (every other
 * in-batch parent is judged first, see {@link parentsFirst}), and a cycle always has a link to
 * a parent of the wrong sub type. That link is seed 002's PARENT_SUBTYPE_MISMATCH (409), as
 * across two requests; any other error is returned as it is.
 */
function inBatchMismatch(
  error: unknown,
  input: unknown,
  batch: readonly { input: unknown }[],
): unknown {
  if (!(error instanceof TraceError) || error.code !== 'VALIDATION') return error;
  if (error.details.field !== 'parent_block_id' || !isRecord(input)) return error;
  // (a block that has no parent of its own kind to have, or is its own parent: not a cycle's)
  if (input.parent_block_id === input.id || typeof input.sub_type !== 'string') return error;
  if (parentSubTypeOf[input.sub_type] === undefined) return error;
  const byId = (id: unknown) =>
    batch.find((item) => isRecord(item.input) && item.input.id === id)?.input;
  const colon = error.message.indexOf(': ');
  const label = colon === -1 ? `block ${String(input.id)}` : error.message.slice(0, colon);
  // around the cycle from this block, the first link whose parent has the wrong sub type: the
  // same cycle gets the same code whichever of its blocks the validator judged first
  const seen = new Set<unknown>();
  for (let child: Record<string, unknown> = input; !seen.has(child.id); ) {
    seen.add(child.id);
    const parent = byId(child.parent_block_id);
    if (!isRecord(parent)) return error;
    const wanted = typeof child.sub_type === 'string' ? parentSubTypeOf[child.sub_type] : undefined;
    if (wanted !== undefined && typeof parent.sub_type === 'string' && parent.sub_type !== wanted)
      return new TraceError({
        code: 'PARENT_SUBTYPE_MISMATCH',
        message: `${label}: a ${String(child.sub_type)} block's parent must be a ${wanted} block, but ${String(parent.id)} is a ${parent.sub_type} (the batch's parent links form a cycle)`,
        details: { ...error.details, parent_sub_type: parent.sub_type },
      });
    child = parent;
  }
  return error;
}

/**
 * The batch with each block after its parent when the parent is in the batch, otherwise in the
 * batch's order: the validator then judges a parent before its children, so a child under a
 * parent of the wrong sub type is a PARENT_SUBTYPE_MISMATCH (409) in one request as across two,
 * not a parent "not accepted before". A cycle of parent links is left in batch order (the
 * validator refuses it; {@link inBatchMismatch} names the mismatched link).
 */
function parentsFirst<T extends { input: unknown }>(items: readonly T[]): T[] {
  const byId = new Map<string, T>();
  for (const item of items) {
    const id = isRecord(item.input) ? item.input.id : undefined;
    if (typeof id === 'string' && !byId.has(id)) byId.set(id, item);
  }
  const placed = new Set<T>();
  const ordered: T[] = [];
  for (const item of items) {
    // the chain of parents in the batch not placed yet, nearest first (iterative: a batch may
    // nest deep, and a cycle ends where the chain meets itself)
    const chain: T[] = [];
    const seen = new Set<T>();
    for (let at: T | undefined = item; at !== undefined && !placed.has(at) && !seen.has(at); ) {
      seen.add(at);
      chain.push(at);
      const parent: unknown = isRecord(at.input) ? at.input.parent_block_id : undefined;
      at = typeof parent === 'string' ? byId.get(parent) : undefined;
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const next = chain[i] as T;
      placed.add(next);
      ordered.push(next);
    }
  }
  return ordered;
}

/**
 * What the validator needs to know of a stored block to judge new ones against it: its id,
 * trace, sub type, parent, role, call id and seq, with the rest of its payload reduced to the
 * smallest value that passes, and no metadata, raw or extra. A stored block was valid when it
 * was written; judged again in full it would fail once a `LIMIT_*` byte limit was lowered, and
 * every block that needs it (a child, a result of its call) would then fail as well.
 */
function standIn(block: Block): Block {
  const payload = block.payload as Record<string, unknown>;
  let reduced: Record<string, unknown>;
  switch (block.sub_type) {
    case 'MESSAGE':
      reduced = { role: payload.role, content: payload.role === 'assistant' ? null : '.' };
      break;
    case 'THINK':
      reduced = { text: '.' };
      break;
    case 'TOOL_CALL':
      reduced = { call_id: payload.call_id, name: 'stored', arguments: {} };
      break;
    default:
      reduced = { call_id: payload.call_id, output: '' };
      if (payload.seq !== undefined) reduced.seq = payload.seq;
  }
  return { ...block, payload: reduced, metadata: {}, raw: null, extra: {} } as Block;
}

/**
 * The stored blocks core's validator must know to judge `fresh`: their parents, calls with
 * the same call ids, results with the same `(call_id, seq)`, and those blocks' own parents.
 */
function* contextOf(
  fresh: readonly Record<string, unknown>[],
): Generator<AppendQuery, Block[], unknown> {
  const freshIds = new Set(fresh.map((input) => input.id));
  const parentIds = new Set<string>();
  const callIds = new Set<string>();
  const resultKeys = new Set<string>();
  const resultCallIds = new Set<string>();
  for (const input of fresh) {
    const parent = input.parent_block_id;
    if (typeof parent === 'string' && !freshIds.has(parent)) parentIds.add(parent);
    const payload = isRecord(input.payload) ? input.payload : {};
    if (typeof payload.call_id !== 'string') continue;
    if (input.sub_type === 'TOOL_CALL') callIds.add(payload.call_id);
    if (input.sub_type === 'TOOL_RESULT' && typeof payload.seq === 'number') {
      resultCallIds.add(payload.call_id);
      resultKeys.add(`${payload.call_id}\u0000${payload.seq}`);
    }
  }
  const found = new Map<string, Block>();
  if (parentIds.size + callIds.size + resultCallIds.size > 0) {
    const rows = (yield {
      kind: 'context',
      parentIds: [...parentIds],
      callIds: [...callIds],
      resultCallIds: [...resultCallIds],
    }) as Block[];
    for (const block of rows) {
      if (block.sub_type === 'TOOL_RESULT' && !parentIds.has(block.id)) {
        const payload = block.payload as { call_id: string; seq?: number };
        if (!resultKeys.has(`${payload.call_id}\u0000${payload.seq}`)) continue;
      }
      found.set(block.id, block);
    }
  }
  // parents of what was found, then theirs (a result's call's message): two levels at most
  for (let level = 0; level < 2; level++) {
    const missing = new Set<string>();
    for (const block of found.values()) {
      const parent = block.parent_block_id;
      if (parent !== null && !found.has(parent)) missing.add(parent);
    }
    if (missing.size === 0) break;
    for (const block of (yield { kind: 'blocks', ids: [...missing] }) as Block[]) {
      found.set(block.id, block);
    }
  }
  return [...found.values()].sort((a, b) => rankOf(a) - rankOf(b));
}

/** Runs a plan against a synchronous reader (SQLite inside its transaction). @internal */
export function runPlan<T>(
  plan: Generator<AppendQuery, T, unknown>,
  answer: (query: AppendQuery) => unknown,
): T {
  let step = plan.next();
  while (!step.done) step = plan.next(answer(step.value));
  return step.value;
}

/** Runs a plan against an asynchronous reader (Postgres inside its transaction). @internal */
export async function runPlanAsync<T>(
  plan: Generator<AppendQuery, T, unknown>,
  answer: (query: AppendQuery) => Promise<unknown>,
): Promise<T> {
  let step = plan.next();
  while (!step.done) step = plan.next(await answer(step.value));
  return step.value;
}
