import { TraceError } from '../errors/index.js';
import { formatIsoTimestamp } from '../model/format-iso-timestamp.js';
import { type DraftBlock, emptyObject } from '../validation/inspect-block.js';
import type { TracerIds } from './tracer-ids.js';

const syntheticMetadata = Object.freeze({ synthetic: true });

/**
 * Builds a tracer's blocks as it submits them: already in canonical block form (every field, in
 * block order), so the validator checks each and freezes it in place instead of copying it.
 * @internal
 */
export class CandidateBuilder {
  constructor(
    private readonly traceId: string,
    private readonly clock: () => number,
    private readonly ids: TracerIds,
  ) {}

  /** The ISO text of a clock reading; throws the tracer's error for a reading that is no time. */
  timestampOf(ms: number): string {
    // a number is a valid time within ±8.64e15 ms (the Date range); anything else goes through Date
    if (typeof ms === 'number') {
      if (Math.abs(ms) <= 8.64e15) return formatIsoTimestamp(ms);
    } else if (!Number.isNaN(new Date(ms).getTime())) {
      return new Date(ms).toISOString();
    }
    throw new TraceError({
      code: 'VALIDATION',
      message: `the tracer's clock() returned ${String(ms)}; it must return epoch milliseconds like Date.now()`,
      details: { field: 'created_at', trace_id: this.traceId },
    });
  }

  /** A block stamped now; the clock is read before the id, so a clock failure draws no id. */
  candidate(
    blockType: 'MESSAGE' | 'ACT' | 'OBSERVE',
    subType: 'MESSAGE' | 'TOOL_CALL' | 'THINK' | 'TOOL_RESULT',
    payload: Record<string, unknown>,
    parent: unknown,
    metadata: Record<string, unknown> | undefined,
    raw: unknown,
    extra: Record<string, unknown> | undefined,
  ): DraftBlock {
    const ms = this.clock();
    const at = this.timestampOf(ms);
    return {
      id: this.ids.nextAt(ms),
      trace_id: this.traceId,
      block_type: blockType,
      sub_type: subType,
      payload,
      // a MESSAGE with a parent is invalid; pass it through so the validator says so
      parent_block_id: parent ?? null,
      metadata: metadata === undefined ? emptyObject : metadata,
      raw: raw === undefined ? null : raw,
      extra: extra === undefined ? emptyObject : extra,
      created_at: at,
      updated_at: at,
    };
  }

  /**
   * A model response's MESSAGE stamped `at`, with the payload logMessage's rest copy would make,
   * in the same key order: built at once, or from a deferred response.
   */
  responseMessage(
    id: string,
    content: string | null,
    metadata: Record<string, unknown>,
    raw: unknown,
    at: string,
  ): DraftBlock {
    return {
      id,
      trace_id: this.traceId,
      block_type: 'MESSAGE',
      sub_type: 'MESSAGE',
      payload: { role: 'assistant', content },
      parent_block_id: null,
      metadata: metadata === undefined ? emptyObject : metadata,
      raw: raw === undefined ? null : raw,
      extra: emptyObject,
      created_at: at,
      updated_at: at,
    };
  }

  /** A model response's MESSAGE built at once, stamped with the clock reading `ms` (its id too). */
  ownedMessage(
    content: string | null,
    metadata: Record<string, unknown>,
    raw: unknown,
    ms: number,
    at: string,
  ): DraftBlock {
    return this.responseMessage(this.ids.nextAt(ms), content, metadata, raw, at);
  }

  /** The synthetic assistant MESSAGE a guarded call attaches to in a trace without one. */
  syntheticMessage(): DraftBlock {
    return this.candidate(
      'MESSAGE',
      'MESSAGE',
      { role: 'assistant', content: null },
      undefined,
      syntheticMetadata,
      undefined,
      undefined,
    );
  }
}
