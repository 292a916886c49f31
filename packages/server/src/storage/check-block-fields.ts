import { blockFieldNames, TraceError } from '@tracewarden/core';

/** The fields of a block (seed 002's `trace_blocks` table): nothing else is stored. */
const blockFields: ReadonlySet<string> = new Set(blockFieldNames);

/**
 * Refuses a block with a top-level field seed 002's blocks do not have. Core's validator builds
 * the stored block from the known fields, so any other would be dropped while the request
 * succeeds: the client would believe stored what is not. Client data has its place in
 * `extra` (seed 002: "freeform client space"), provider payloads in `raw`.
 *
 * @param input - one block as posted (an object)
 * @param traceId - the trace it is posted to (named in the error's details, as other block
 *   errors name it)
 * @param index - its position in the batch
 * @param batchSize - how many blocks the batch holds (a position is named only when several)
 * @throws core's `TraceError` `VALIDATION` (422) naming the field in `details.field`
 * @internal
 */
export function checkBlockFields(
  input: Readonly<Record<string, unknown>>,
  traceId: string,
  index: number,
  batchSize: number,
): void {
  for (const key of Object.keys(input)) {
    if (blockFields.has(key)) continue;
    const id = typeof input.id === 'string' ? input.id : undefined;
    const label =
      id !== undefined
        ? `block ${id}`
        : batchSize > 1
          ? `block ${index} of the batch`
          : 'the block';
    throw new TraceError({
      code: 'VALIDATION',
      message: `${label} has a field ${JSON.stringify(key)} that blocks do not have (seed 002: ${[...blockFields].join(', ')}); put client data in extra, or leave the field out`,
      details: {
        ...(typeof input.sub_type === 'string' ? { sub_type: input.sub_type } : {}),
        field: key,
        trace_id: typeof input.trace_id === 'string' ? input.trace_id : traceId,
        ...(id === undefined ? {} : { block_id: id }),
        ...(batchSize > 1 ? { path: String(index) } : {}),
      },
    });
  }
}
