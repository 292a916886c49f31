import type { IncomingHttpHeaders } from 'node:http';

const credentialHeaders = new Set([
  'authorization',
  'proxy-authorization',
  'api-key',
  'x-api-key',
  'cookie',
]);

/**
 * Flattens request headers into strings and replaces credential values by `'[redacted]'`.
 *
 * @internal
 * @param headers - Node's incoming headers.
 * @returns Lower-case names to values; repeated values joined with `, `.
 */
export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    result[name] = credentialHeaders.has(name)
      ? '[redacted]'
      : Array.isArray(value)
        ? value.join(', ')
        : value;
  }
  return result;
}
