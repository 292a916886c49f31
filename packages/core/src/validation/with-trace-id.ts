import { configurationError } from '../errors/validate-options.js';
import { isRecord } from './is-record.js';

/**
 * `input` with `trace_id` set to `traceId` when it has none, as seed 002's server takes a posted
 * block's trace from the request path; otherwise `input` itself (no copy, one property read).
 * Only an object without a `trace_id` (no key, or `undefined`) is completed: one given as `null`
 * or `""` is still reported.
 * @internal
 */
export function withTraceId(input: unknown, traceId: string | undefined): unknown {
  if (traceId === undefined || !isRecord(input) || input.trace_id !== undefined) return input;
  return { ...input, trace_id: traceId };
}

/**
 * The `traceId` option of a validating entry point, checked where it is given.
 * @throws {ConfigurationError} when it is given and not a non-empty string
 * @internal
 */
export function traceIdOption(entryPoint: string, traceId: unknown): string | undefined {
  if (traceId === undefined || (typeof traceId === 'string' && traceId !== '')) return traceId;
  throw configurationError(entryPoint, 'traceId', 'a non-empty trace id string', traceId);
}
