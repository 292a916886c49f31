import { type Block, type BlockLimits, TraceError } from '@tracewarden/core';

/** The payload fields seed 002 measures by name, per sub type, and the limit they share. */
function measuredOf(
  subType: string,
  limits: Readonly<BlockLimits>,
): { fields: readonly string[]; limit: number; variable: string } | undefined {
  switch (subType) {
    case 'MESSAGE':
      return { fields: ['content'], limit: limits.messageBytes, variable: 'LIMIT_MSG_BYTES' };
    case 'THINK':
      return { fields: ['text'], limit: limits.thinkBytes, variable: 'LIMIT_THINK_BYTES' };
    case 'TOOL_CALL':
      return {
        fields: ['arguments'],
        limit: limits.toolArgumentsBytes,
        variable: 'LIMIT_TOOL_ARGS_BYTES',
      };
    case 'TOOL_RESULT':
      return {
        fields: ['output', 'delta'],
        limit: limits.toolResultBytes,
        variable: 'LIMIT_TOOL_RESULT_BYTES',
      };
    default:
      return undefined;
  }
}

function formatLimit(bytes: number): string {
  if (bytes % 1_048_576 === 0) return `${bytes / 1_048_576}MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024}KB`;
  return `${bytes} bytes`;
}

/**
 * Bounds a block's payload as a whole. Core's validator holds the field seed 002 measures
 * (`content`, `text`, `arguments`, `output` / `delta`) to its sub type's `LIMIT_*`, and every
 * other payload field to the same limit one by one; without a bound on those other fields
 * together, a payload of many fields each under the limit could carry any size up to the body
 * limit ("either the payload fits, or the request fails"). So the other fields together, as
 * the JSON object they form, must fit the same limit: a payload holds at most twice its sub
 * type's limit, and never more than a block at the limit needs.
 *
 * @param block - a block core's validator accepted
 * @param limits - the block byte limits in force
 * @throws core's `TraceError` `PAYLOAD_TOO_LARGE` (413) with seed 002's details,
 *   `field: "payload"`, when the other fields together pass the limit
 * @internal
 */
export function checkPayloadTotal(block: Block, limits: Readonly<BlockLimits>): void {
  const measured = measuredOf(block.sub_type, limits);
  if (measured === undefined) return;
  const payload = block.payload as Record<string, unknown>;
  const rest: Record<string, unknown> = {};
  let others = 0;
  for (const key in payload) {
    if (measured.fields.includes(key)) continue;
    rest[key] = payload[key];
    others++;
  }
  // the common payload (a role, a call id and name, a seq) is a few bytes: nothing to count
  if (others === 0) return;
  const json = JSON.stringify(rest);
  if (json.length <= measured.limit / 3) return;
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= measured.limit) return;
  const kind = block.sub_type.toLowerCase();
  throw new TraceError({
    code: 'PAYLOAD_TOO_LARGE',
    message: `${kind} payload exceeds ${formatLimit(measured.limit)} limit: its fields besides ${measured.fields.join(' / ')} hold ${bytes} bytes together (${measured.variable} bounds them as one); send less in those fields, or put bulky data in the block's raw or extra`,
    details: {
      sub_type: block.sub_type,
      field: 'payload',
      limit_bytes: measured.limit,
      actual_bytes: bytes,
      trace_id: block.trace_id,
      parent_block_id: block.parent_block_id,
    },
  });
}
