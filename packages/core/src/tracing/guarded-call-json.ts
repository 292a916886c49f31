import type { GuardedCallRecord } from '../convert/entry-to-blocks.js';
import type { Block } from '../model/index.js';
import { encodedJson, JsonBytes } from '../sinks/json-bytes.js';
import { emptyObject } from '../validation/inspect-block.js';
import { JsonQuotes, numberJson } from './json-text.js';

/** A guard record that writes its own JSON text (the guard's `DirectRecord`). */
interface GuardJsonSource {
  writeGuardJson(out: JsonBytes, quote: (text: string) => Uint8Array): void;
}

// The blocks' JSON text around their values, in guardedCallToBlocks's key order
const idOpen = encodedJson('{"id":"');
const traceIdKey = encodedJson('","trace_id":');
const callKinds = encodedJson(',"block_type":"ACT","sub_type":"TOOL_CALL","payload":');
const resultKinds = encodedJson(',"block_type":"OBSERVE","sub_type":"TOOL_RESULT","payload":');
const parentKey = encodedJson(',"parent_block_id":"');
const callMetadataOpen = encodedJson('","metadata":{"timestamp":');
const sessionKey = encodedJson(',"session_id":');
const callMetadataClose = encodedJson('}');
const resultMetadataKey = encodedJson('","metadata":');
const statusOpen = encodedJson('{"status":');
const executionTimeKey = encodedJson(
  ',"exception":null,"exception_type":null,"execution_time_ms":',
);
const retryCountKey = encodedJson(',"retry_count":');
const costKey = encodedJson(',"validations":[],"hallucination":null,"cost":');
const timestampKey = encodedJson(',"timestamp":');
const guardKey = encodedJson(',"guard":');
const resultMetadataClose = encodedJson('}');
const createdAtKey = encodedJson(',"raw":null,"extra":{},"created_at":');
const updatedAtKey = encodedJson(',"updated_at":');
const blockClose = encodedJson('}');
const nullJson = encodedJson('null');

/**
 * The JSON text of a guarded call's two blocks, as `guardedCallToBlocks` builds them, UTF-8
 * encoded, for sinks that write JSON lines: the bytes of `JSON.stringify` of each block (a
 * property test holds it to that). `JSON.stringify` pays for every key of every object (the
 * TOOL_RESULT has ~40, most of them the guard's fixed metadata), scans every string for
 * characters to escape, and makes a string the sink then encodes; here the fixed text is copied
 * as bytes, the tracer's own ids and numbers are written as ASCII, recurring strings are quoted
 * once, and only what the caller brought (arguments, output) goes through `JSON.stringify`. Kept
 * because the JSONL file sink rows of bench/guards.bench.ts show it (decision 080). Only for
 * blocks with the tracer's own ids whose values were checked (`valuesChecked`); anything else is
 * left to the sink's `JSON.stringify`.
 * @internal
 */
export class GuardedCallJson {
  /** The TOOL_CALL's text after {@link write} returned true (a view, valid until the next). */
  callJson: Uint8Array = new Uint8Array(0);
  /** The TOOL_RESULT's text after {@link write} returned true (a view, valid until the next). */
  resultJson: Uint8Array = new Uint8Array(0);
  private readonly traceIdJson: Uint8Array;
  private readonly quotes = new JsonQuotes();
  private readonly out = new JsonBytes(4096);

  constructor(traceId: string) {
    this.traceIdJson = encodedJson(JSON.stringify(traceId));
  }

  /**
   * Writes the blocks' text into {@link callJson} and {@link resultJson}; false (nothing written)
   * when a block is not in the shape this knows, so the sink serialises it. The blocks' ids must
   * be the tracer's own (a prefix and a ULID: ASCII, nothing to escape).
   */
  write(call: Block, result: Block, record: GuardedCallRecord): boolean {
    if (
      call.raw !== null ||
      call.extra !== emptyObject ||
      result.raw !== null ||
      result.extra !== emptyObject
    )
      return false;
    let callPayload: string;
    let resultPayload: string;
    try {
      // one call per payload: its keys are few, and its values are the caller's (any JSON)
      callPayload = JSON.stringify(call.payload);
      resultPayload = JSON.stringify(result.payload);
    } catch {
      return false;
    }
    const out = this.out;
    const quote = this.quotes.quote;
    out.length = 0;
    // every value written below leaves room for the fixed text up to the next (literalInRoom)
    out.ensure(0);

    const callMetadata = call.metadata as { timestamp: string; session_id: string | null };
    const session = callMetadata.session_id;
    out.literalInRoom(idOpen);
    out.ascii(call.id);
    out.literalInRoom(traceIdKey);
    out.literal(this.traceIdJson);
    out.literalInRoom(callKinds);
    out.text(callPayload);
    out.literalInRoom(parentKey);
    out.ascii(call.parent_block_id as string);
    out.literalInRoom(callMetadataOpen);
    out.literal(quote(callMetadata.timestamp));
    out.literalInRoom(sessionKey);
    out.literal(session === null ? nullJson : quote(session));
    out.literalInRoom(callMetadataClose);
    out.literalInRoom(createdAtKey);
    out.literal(quote(call.created_at));
    out.literalInRoom(updatedAtKey);
    out.literal(quote(call.updated_at));
    out.literalInRoom(blockClose);
    const callEnd = out.length;

    out.literalInRoom(idOpen);
    out.ascii(result.id);
    out.literalInRoom(traceIdKey);
    out.literal(this.traceIdJson);
    out.literalInRoom(resultKinds);
    out.text(resultPayload);
    out.literalInRoom(parentKey);
    out.ascii(result.parent_block_id as string);
    out.literalInRoom(resultMetadataKey);
    this.writeResultMetadata(result.metadata, record);
    out.literalInRoom(createdAtKey);
    out.literal(quote(result.created_at));
    out.literalInRoom(updatedAtKey);
    out.literal(quote(result.updated_at));
    out.literalInRoom(blockClose);
    // views of one buffer (it only grows between calls, so both stay whole)
    this.callJson = out.bytes.subarray(0, callEnd);
    this.resultJson = out.bytes.subarray(callEnd, out.length);
    return true;
  }

  /** The TOOL_RESULT's metadata: literal text for a call without validators or detector. */
  private writeResultMetadata(metadata: Record<string, unknown>, record: GuardedCallRecord): void {
    const out = this.out;
    const m = metadata as {
      status: unknown;
      exception: unknown;
      exception_type: unknown;
      execution_time_ms: unknown;
      retry_count: unknown;
      validations: unknown[];
      hallucination: unknown;
      cost: unknown;
      timestamp: string;
      guard: unknown;
    };
    const cost = m.cost;
    if (
      typeof m.status !== 'string' ||
      m.exception !== null ||
      m.exception_type !== null ||
      typeof m.execution_time_ms !== 'number' ||
      typeof m.retry_count !== 'number' ||
      m.validations.length !== 0 ||
      m.hallucination !== null ||
      (cost !== null && typeof cost !== 'number')
    ) {
      out.text(JSON.stringify(metadata));
      return;
    }
    const quote = this.quotes.quote;
    out.literalInRoom(statusOpen);
    out.literal(quote(m.status));
    out.literalInRoom(executionTimeKey);
    out.ascii(numberJson(m.execution_time_ms));
    out.literalInRoom(retryCountKey);
    out.ascii(numberJson(m.retry_count));
    out.literalInRoom(costKey);
    out.ascii(cost === null ? 'null' : numberJson(cost as number));
    out.literalInRoom(timestampKey);
    out.literal(quote(m.timestamp));
    out.literalInRoom(guardKey);
    if (typeof (record as Partial<GuardJsonSource>).writeGuardJson === 'function')
      (record as unknown as GuardJsonSource).writeGuardJson(out, quote);
    else out.text(JSON.stringify(m.guard));
    out.literalInRoom(resultMetadataClose);
  }
}
