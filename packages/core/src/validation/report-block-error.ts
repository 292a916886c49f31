import { TraceError, type TraceErrorCode, type TraceErrorDetails } from '../errors/index.js';
import type { BlockPath, DraftBlock } from './draft-block.js';

/** Reports an error about a block, with the base details plus `extra`. @internal */
export function reportBlockError(
  errors: TraceError[] | undefined,
  code: TraceErrorCode,
  draft: DraftBlock | undefined,
  path: BlockPath,
  message: string,
  extra: TraceErrorDetails,
): void {
  const details = baseDetails(draft, path);
  for (const key of Object.keys(extra)) details[key] = extra[key];
  reportError(
    errors,
    new TraceError({ code, message: `${blockLabel(draft, path)}: ${message}`, details }),
  );
}

export function reportFieldError(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: string,
  message: string,
): void {
  reportBlockError(errors, 'VALIDATION', draft, path, message, { field });
}

/**
 * Collects or throws: with a list, errors are appended so every problem is found; without one,
 * the first error is thrown (the accept path allocates nothing unless something is wrong).
 * @internal
 */
export function reportError(errors: TraceError[] | undefined, error: TraceError): void {
  if (errors === undefined) throw error;
  errors.push(error);
}

/**
 * Details every error about a block carries, from whatever identifying fields are valid.
 * @internal
 */
export function baseDetails(draft: DraftBlock | undefined, path: BlockPath): TraceErrorDetails {
  const details: TraceErrorDetails = {};
  if (path !== undefined) details.path = String(path);
  if (draft === undefined) return details;
  if (typeof draft.sub_type === 'string') details.sub_type = draft.sub_type;
  if (typeof draft.trace_id === 'string') details.trace_id = draft.trace_id;
  if (typeof draft.parent_block_id === 'string' || draft.parent_block_id === null) {
    details.parent_block_id = draft.parent_block_id;
  }
  if (typeof draft.id === 'string') details.block_id = draft.id;
  return details;
}

/** How a block is named in messages: its index in a batch, and its id when it has one. @internal */
export function blockLabel(draft: DraftBlock | undefined, path: BlockPath): string {
  const id =
    draft !== undefined && typeof draft.id === 'string' && draft.id !== '' ? draft.id : undefined;
  if (path !== undefined) return id === undefined ? `block ${path}` : `block ${path} (${id})`;
  return id === undefined ? 'block' : `block ${id}`;
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    return value.length > 40 ? `a string of length ${value.length}` : JSON.stringify(value);
  }
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `a ${typeof value}`;
}
