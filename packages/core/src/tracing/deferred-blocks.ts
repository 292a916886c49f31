import { type GuardedCallRecord, guardedCallToBlocks } from '../convert/entry-to-blocks.js';
import { formatIsoTimestamp } from '../model/format-iso-timestamp.js';
import { bytesOver } from '../validation/check-limited-field.js';
import type { TraceValidator } from '../validation/create-trace-validator.js';
import { type DraftBlock, emptyObject, fitsLimit, isRecord } from '../validation/inspect-block.js';
import { jsonProblem } from '../validation/json-problem.js';
import type { BlockLimits } from '../validation/types.js';
import type { CandidateBuilder } from './candidate-builder.js';
import type { TracerSinks } from './tracer-sinks.js';

// 10000-01-01T00:00:00.000Z: clock readings in [0, this) are formatted as 24 characters
const maxDeferredMs = 253_402_300_800_000;

/**
 * A model response's MESSAGE waiting in a sinkless tracer (see `recordModelResponse`): only what
 * the block is made of, its clock reading kept as a number. Kept until the trace is read, and so
 * copied by every young-generation GC until then: one small object, no draft or payload yet.
 */
class DeferredResponse {
  constructor(
    readonly id: string,
    readonly content: string | null,
    readonly metadata: Record<string, unknown>,
    readonly raw: unknown,
    /** Epoch milliseconds within years 1970-9999: formatted as a valid 24-character timestamp. */
    readonly at: number,
  ) {}
}

/** The parts of a guarded call's metadata that user code made: validator and detector results. */
export function userPartsWritable(record: GuardedCallRecord): boolean {
  const validations = record.validations;
  const hallucination = record.hallucination;
  return (
    (validations.length === 0 || jsonProblem(validations, false) === undefined) &&
    (hallucination === null || jsonProblem(hallucination, false) === undefined)
  );
}

/**
 * Guarded calls and model responses whose blocks a tracer with no sink records on the next read
 * or write (decisions 008 and 009): with no sink waiting for them, a guarded call costs one
 * record instead of two validated, frozen blocks, and a model response one small object. Every
 * tracer method that reads or adds blocks materializes first, in order.
 * @internal
 */
export class DeferredBlocks {
  private items: (GuardedCallRecord | DeferredResponse)[] = [];
  // the one-block batch a deferred response is adopted as (reused: adoption keeps no reference to it)
  private readonly single: DraftBlock[] = [];
  /** Nothing can tell the difference: no sink, and the tracer's own (unique, increasing) ids. */
  private readonly possible: boolean;

  constructor(
    private readonly traceId: string,
    private readonly validator: TraceValidator,
    private readonly limits: BlockLimits,
    private readonly build: CandidateBuilder,
    private readonly sinks: TracerSinks,
    private readonly ownIds: boolean,
  ) {
    this.possible = sinks.count === 0 && ownIds;
  }

  /**
   * Whether a guarded call's blocks would pass every rule, so they can be built later: the
   * values the call brought (tool name, arguments, output, timestamps) are checked now, and the
   * rest holds by construction (a fresh call id, the tracer's own ids, an accepted parent).
   */
  canDeferCall(record: GuardedCallRecord, lastMessageId: string | null): boolean {
    return this.possible && this.valuesChecked(record, lastMessageId);
  }

  /**
   * Whether every rule a guarded call's blocks are subject to holds, but for the uniqueness of
   * their ids and call id: the values the call brought pass their checks now, and the rest holds
   * by construction (the tracer's own ids, an accepted parent, the guard's own metadata). Such
   * blocks may be adopted (`adoptAllOwned`: ids and call ids still checked) rather than inspected
   * again, whether they are recorded now (a tracer with sinks) or later ({@link canDeferCall}).
   */
  valuesChecked(record: GuardedCallRecord, lastMessageId: string | null): boolean {
    const limits = this.limits;
    return (
      this.ownIds &&
      lastMessageId !== null &&
      record.uniqueCallId &&
      typeof record.callId === 'string' &&
      record.callId !== '' &&
      typeof record.toolName === 'string' &&
      record.toolName !== '' &&
      // a Date#toISOString string of 24 characters is a valid ISO timestamp (years 0000-9999)
      record.callTimestamp.length === 24 &&
      record.resultTimestamp.length === 24 &&
      isRecord(record.kwargs) &&
      fitsLimit(record.kwargs, limits.toolArgumentsBytes) &&
      fitsLimit(record.returnValue ?? null, limits.toolResultBytes) &&
      // the other values the call brought: a deferred block must be as writable as a checked one
      (record.args.length === 0 ||
        (jsonProblem(record.args, false) === undefined &&
          bytesOver(record.args, limits.toolArgumentsBytes) === undefined)) &&
      userPartsWritable(record)
    );
  }

  /** Keeps a guarded call whose ids and parent are set ({@link canDeferCall} said yes). */
  deferCall(record: GuardedCallRecord): void {
    this.items.push(record);
  }

  /**
   * Whether a model response's MESSAGE (`role: 'assistant'`, built by the tracer) passes every
   * rule its values are subject to: content within the message limit and encodable (the same
   * check the validator runs, via `fitsLimit`; `null` needs none), metadata a plain object. The
   * rest holds by construction: the tracer's own trace id and ids, no parent; the caller checks
   * that the clock's reading formats as a valid timestamp (see {@link deferrableAt}).
   */
  canDeferResponse(content: string | null, metadata: Record<string, unknown>): boolean {
    if (!this.possible) return false;
    if (typeof metadata !== 'object' || metadata === null) return false;
    const prototype = Object.getPrototypeOf(metadata);
    if (prototype !== Object.prototype && prototype !== null) return false;
    if (content === null) return true;
    return typeof content === 'string' && fitsLimit(content, this.limits.messageBytes);
  }

  /** A clock reading a deferred response may keep: formatted later as a valid timestamp. */
  deferrableAt(ms: number): boolean {
    return typeof ms === 'number' && ms >= 0 && ms < maxDeferredMs;
  }

  /** Keeps a model response's MESSAGE, its id drawn and its clock reading `at` checked. */
  deferResponse(
    id: string,
    content: string | null,
    metadata: Record<string, unknown>,
    raw: unknown,
    at: number,
  ): void {
    this.items.push(
      new DeferredResponse(id, content, metadata, raw === undefined ? null : raw, at),
    );
  }

  /**
   * Records the deferred guarded calls' and model responses' blocks, in order. Their rules were
   * checked when deferred.
   */
  materialize(): void {
    if (this.items.length === 0) return;
    const records = this.items;
    this.items = [];
    const validator = this.validator;
    for (let i = 0; i < records.length; i++) {
      const item = records[i] as GuardedCallRecord | DeferredResponse;
      if (item instanceof DeferredResponse) {
        // a model response's MESSAGE, a root: only its id is entered (unique by construction).
        // Its clock reading is formatted now, as candidate() would have at once.
        const single = this.single;
        single[0] = this.build.responseMessage(
          item.id,
          item.content,
          item.metadata,
          item.raw,
          formatIsoTimestamp(item.at),
        );
        try {
          validator.adoptAllOwned(single);
        } catch (error) {
          this.sinks.report(error);
        }
        single.pop(); // not `length = 0`: a runtime call per response
        continue;
      }
      const record = item;
      const pair = guardedCallToBlocks(
        record,
        this.traceId,
        record.parentBlockId,
        record.callBlockId,
        record.resultBlockId,
        emptyObject,
      );
      try {
        validator.adoptAllOwned(pair as unknown as DraftBlock[]);
      } catch (error) {
        // only a call id the trace already had (one logged by hand) can land here: reported
        // like a sink failure, so flush() rejects, never dropped silently
        this.sinks.report(error);
      }
    }
  }
}
