import { createHash } from 'node:crypto';
import {
  type Block,
  createSequentialIds,
  entryToBlocks,
  eventsToBlocks,
  type IdGenerator,
  type Trace,
  TraceEntrySchema,
} from '@tracewarden/core';
import type { BlockItem, InputItem, TraceItem } from '../formats/index.js';
import type { LoneSurrogatesInTrace } from '../warnings/index.js';
import { collectLoneSurrogates } from '../warnings/lone-surrogate-warning.js';
import { withoutUnknownBlockFields } from '../warnings/unknown-block-field-tally.js';
import { blockAddress } from './block-address.js';
import { contentTraceId } from './content-trace-id.js';
import { normalizeBlock } from './normalize-block.js';
import { parseChatTrace } from './read-chat-trace.js';
import { traceErrorLine } from './trace-error-line.js';
import { datasetFieldsOf, traceFieldsOf, withTraceFields } from './trace-fields.js';
import { unknownSubTypeOf } from './unknown-sub-type.js';

/** Why an item could not be turned into blocks. */
export interface ConversionSkip {
  line: number | undefined;
  message: string;
}

/** A block left out because its `sub_type` is unknown. */
export interface UnknownSubType {
  line: number | undefined;
  subType: string;
  /** `tr_1/tb_7`, or what is known of it. */
  address: string;
}

/** A chat-event trace with no events, which converts to no blocks. */
export interface EmptyTrace {
  label: string;
  line: number | undefined;
  /** The trace id its blocks would have had. */
  traceId: string;
  /** The names of its own fields (its `metadata`, ...), if any. */
  fields: string[];
  /** Its own fields ({@link traceFieldsOf}), and its dataset's ({@link datasetFieldsOf}). */
  traceFields: Record<string, unknown> | undefined;
  datasetFields: Record<string, unknown> | undefined;
}

/** Options of {@link createBlockConverter}. */
export interface BlockConverterOptions {
  /** Ids for converted events and entries. @default createSequentialIds() (deterministic) */
  ids?: IdGenerator;
  /** Items that could not be converted (reported, then skipped). */
  onSkip?: (skip: ConversionSkip) => void;
  /**
   * Blocks whose `sub_type` is a string seed 002 does not have (`TOOL_CALLL`), instead of
   * `onSkip`: the caller tallies them, to say so once per value. Either way they are left out.
   */
  onUnknownSubType?: (found: UnknownSubType) => void;
  /**
   * Name chat-event traces without an id by their label (`#0`, `#1`, ...) rather than a new
   * `tr_` id, for display. @default false
   */
  labelTraceIds?: boolean;
  /**
   * Ids that depend only on each chat-event trace's content: a trace without an id gets
   * `tr_` + a hash of its events, and each trace's block and call ids start from 1, so the same
   * trace converts to the same blocks whichever file or position it is read from (what `push`
   * needs for a re-push to be a no-op, and two files' traces not to collide). Trace entries get
   * block ids from each entry's content too (and a session-less file's trace an id from its
   * first entry). @default false
   */
  contentIds?: boolean;
  /**
   * With `contentIds`: chat-event traces' block and call ids run on through the file
   * (`tb_000001`, ... across its traces) instead of starting from 1 in each trace, so that a file
   * of several traces holds each block id once, as `validate` requires of one file (`convert`
   * writes files; `push` sends each trace on its own). A file's first trace gets the same ids
   * either way. @default false
   */
  fileBlockIds?: boolean;
  /**
   * Blocks read from a file are handed on as given, not filled to the stored shape
   * (`normalizeBlock`): `push` sends what the file holds, so the collector judges it (a
   * `metadata` that is no object, a numeric `created_at` are refused, not silently replaced).
   * @default false
   */
  blocksAsGiven?: boolean;
  /**
   * Chat-event traces whose text held lone UTF-16 surrogates, which `parseTrace` read as U+FFFD
   * (once per trace, to warn `LONE_SURROGATE`).
   */
  onLoneSurrogates?: ((found: LoneSurrogatesInTrace) => void) | undefined;
  /**
   * A chat-event trace with no events (`[]`, an Explorer `[{ metadata }]`): it has no blocks, so
   * neither it nor its fields are converted to blocks (`convert --to jsonl` warns `EMPTY_TRACE`;
   * `convert --to events` writes it back from what is given here).
   */
  onEmptyTrace?: ((found: EmptyTrace) => void) | undefined;
  /**
   * A chat-event trace whose id another trace of the file already has (a run exported twice,
   * `"id": 5` and `"id": "5"`): its blocks get `<id>_2` (`_3`, ...) so that two traces are
   * never merged into one; `convert` warns `DUPLICATE_TRACE_ID`.
   */
  onRenamedTrace?:
    | ((found: { label: string; line: number | undefined; traceId: string }) => void)
    | undefined;
  /**
   * Whether a chat-event trace may be converted; one it refuses is left out, with an `onSkip`
   * (`convert` refuses what `validate` would reject, having reported why). @default every one
   */
  isValidTrace?: ((item: TraceItem) => boolean) | undefined;
  /**
   * Each block item as read, before it is filled to the stored shape (`convert` checks it as
   * `validate` does, to report what is wrong with it and exit 1).
   */
  onBlockItem?: ((item: BlockItem) => void) | undefined;
}

/** 26 hex digits of the SHA-256 of a value's JSON. */
function contentHash(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value) ?? '')
    .digest('hex')
    .slice(0, 26);
}

/**
 * Ids for one trace entry's blocks from the entry's content (`tb_<hash>_1`, ...), so the same
 * entry gives the same blocks in any file, and entries of one session from two files never
 * reuse each other's block ids.
 */
function entryIds(value: unknown): IdGenerator {
  const hash = contentHash(value);
  let block = 0;
  let call = 0;
  return {
    blockId: () => `tb_${hash}_${++block}`,
    traceId: () => `tr_${hash}`,
    callId: () => `call_${hash}_${++call}`,
  };
}

/**
 * Keeps a session's synthetic message before every block it makes: entries need not come in time
 * order (a `+02:00` offset, a log merged from two processes), so when a later entry holds an
 * earlier time, the message (the same object, still held by a trace not yet finished) moves to
 * 1 ms before it. Not to the very same time: events of equal times are ordered by block id, a
 * hash, which could put a tool output before the message that makes its call.
 */
function moveBefore(message: Block, blocks: readonly Block[]): void {
  let earliest = Date.parse(message.created_at ?? '');
  if (Number.isNaN(earliest)) return;
  let moved = false;
  for (const block of blocks) {
    const time = Date.parse(block.created_at ?? '');
    if (time < earliest) {
      earliest = time;
      moved = true;
    }
  }
  if (!moved) return;
  const createdAt = new Date(earliest - 1).toISOString();
  // the converter's own block, made for this session: no one else holds it as read-only data
  const own = message as { created_at?: string; updated_at?: string };
  own.created_at = createdAt;
  own.updated_at = createdAt;
}

/** Turns a file's items into blocks, one item at a time. */
export interface BlockConverter {
  /** The blocks of one item (empty for metadata and skipped items). */
  convert(item: InputItem): Block[];
  /** A new file starts: the dataset fields of the last one no longer apply. */
  startFile(): void;
}

/**
 * Converts whatever a file holds into blocks, streaming: chat-event traces with
 * `eventsToBlocks` (the trace id is the trace's metadata id, else `tr_000001`, ..., or with
 * `contentIds` a hash of its events), blocks as
 * they are (filled to the stored shape), and trace entries with `entryToBlocks` under one
 * synthetic assistant MESSAGE per `session_id` (`metadata.synthetic: true`; the trace id is the
 * session id). Ids are deterministic, and converted events are timed from the epoch
 * (`created_at` 1970-01-01T00:00:00.000Z + 1 ms per block), so a conversion is reproducible.
 * What a chat-event trace holds besides its events (its `metadata`, `annotations`, an AgentDojo
 * run's fields) goes on its first block as `metadata.chat_trace`, and a dataset's own fields
 * (`name`, `metadata`) on the first block of each of its traces as `metadata.chat_dataset`
 * (decision 003), so that nothing of the file is lost.
 *
 * @param options - id source and skip callback
 * @returns the converter
 * @example
 * ```ts
 * const converter = createBlockConverter();
 * for await (const item of input.items) for (const block of converter.convert(item)) sink.write(block);
 * ```
 */
export function createBlockConverter(options: BlockConverterOptions = {}): BlockConverter {
  const ids = options.ids ?? createSequentialIds();
  const sessions = new Map<string, { traceId: string; messageId: string; message: Block }>();
  // the fields of the file's dataset, once its metadata item is read
  let dataset: Record<string, unknown> | undefined;
  // trace ids the file's chat-event traces were given: two traces must never share one
  const traceIds = new Set<string>();
  const uniqueTraceId = (item: TraceItem, wanted: string, warn: boolean): string => {
    let traceId = wanted;
    for (let k = 2; traceIds.has(traceId); k++) traceId = `${wanted}_${k}`;
    traceIds.add(traceId);
    if (traceId !== wanted && warn)
      options.onRenamedTrace?.({ label: item.label, line: item.line, traceId });
    return traceId;
  };
  const skip = (line: number | undefined, message: string): Block[] => {
    options.onSkip?.({ line, message });
    return [];
  };
  return {
    startFile() {
      dataset = undefined;
      traceIds.clear();
    },
    // Nothing is kept per trace (only per trace-entry session), so memory stays flat however
    // many traces a file holds; a chat-event trace's label is its item's `label`.
    convert(item) {
      switch (item.type) {
        case 'problem':
          return skip(item.line, `${item.code}: ${item.message}`);
        case 'dataset-metadata':
          dataset = datasetFieldsOf(item.value);
          return [];
        case 'block': {
          options.onBlockItem?.(item);
          const block = normalizeBlock(item.value);
          const subType = block === undefined ? unknownSubTypeOf(item.value) : undefined;
          if (subType !== undefined && options.onUnknownSubType !== undefined) {
            options.onUnknownSubType({ line: item.line, subType, address: blockAddress(item) });
            return [];
          }
          if (block === undefined)
            return skip(
              item.line,
              'not a block (it needs a string id, trace_id and a sub_type of MESSAGE, TOOL_CALL, TOOL_RESULT or THINK); run `tracewarden validate` for details',
            );
          // as given, but without the fields a block has not (said by the caller's tally): the
          // collector refuses a block that carries one
          return [
            options.blocksAsGiven === true ? withoutUnknownBlockFields(item.value as Block) : block,
          ];
        }
        case 'trace': {
          let trace: Trace;
          const surrogates = collectLoneSurrogates();
          try {
            trace = parseChatTrace(item.value, surrogates);
          } catch (error) {
            return skip(
              traceErrorLine(item, error),
              `trace ${item.label}: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
          if (options.isValidTrace !== undefined && !options.isValidTrace(item)) {
            return skip(
              item.line,
              `trace ${item.label}: not converted, as its blocks would not be valid (the problems above, as \`tracewarden validate\` reports them); a block is never cut to fit (seed 002)`,
            );
          }
          if (surrogates.count > 0) {
            options.onLoneSurrogates?.({
              label: item.label,
              line: item.lineOfEvent(surrogates.events[0] ?? 0) ?? item.line,
              count: surrogates.count,
              events: surrogates.events,
            });
          }
          const unnamed = item.label.startsWith('#') && options.labelTraceIds !== true;
          const wanted = unnamed
            ? options.contentIds === true
              ? contentTraceId(trace, traceFieldsOf(item.value, ''))
              : ids.traceId()
            : item.label;
          // two traces of a file with the same events (a run exported twice) are kept apart as
          // well: only a renamed trace id of the file's own is worth a warning
          const traceId = uniqueTraceId(item, wanted, !unnamed);
          const fields = traceFieldsOf(item.value, traceId);
          if (trace.length === 0) {
            options.onEmptyTrace?.({
              label: item.label,
              line: item.line,
              traceId,
              fields: fields === undefined ? [] : Object.keys(fields),
              traceFields: fields,
              datasetFields: dataset,
            });
          }
          const blocks = eventsToBlocks(trace, {
            traceId,
            ids:
              options.contentIds === true && options.fileBlockIds !== true
                ? createSequentialIds()
                : ids,
            startTime: 0,
          });
          return withTraceFields(blocks, fields, dataset);
        }
        case 'entry': {
          const parsed = TraceEntrySchema.safeParse(item.value);
          if (!parsed.success) {
            const issue = parsed.error.issues[0];
            return skip(
              item.line,
              `not a trace entry: ${issue === undefined ? '' : `${issue.path.join('.')}: ${issue.message}`}; run \`tracewarden validate\` for details`,
            );
          }
          const entry = parsed.data;
          const session = entry.call.session_id ?? '';
          const out: Block[] = [];
          const own = options.contentIds === true ? entryIds(item.value) : ids;
          let state = sessions.get(session);
          if (state === undefined) {
            // with content ids: the session's first entry names a trace without a session id
            const traceId = session === '' ? own.traceId() : session;
            const createdAt = new Date(Date.parse(entry.call.timestamp) || 0).toISOString();
            const message: Block = {
              id: own.blockId(),
              trace_id: traceId,
              block_type: 'MESSAGE',
              sub_type: 'MESSAGE',
              // tool calls belong to an assistant turn (so blocksToEvents gives OpenAI-shaped events)
              payload: { role: 'assistant', content: null },
              parent_block_id: null,
              metadata: { synthetic: true, ...(session === '' ? {} : { session_id: session }) },
              raw: null,
              extra: {},
              created_at: createdAt,
              updated_at: createdAt,
            };
            state = { traceId, messageId: message.id, message };
            sessions.set(session, state);
            out.push(message);
          }
          const converted = entryToBlocks(entry, {
            traceId: state.traceId,
            parentBlockId: state.messageId,
            ids: own,
          });
          moveBefore(state.message, converted);
          out.push(...converted);
          return out;
        }
      }
    },
  };
}
