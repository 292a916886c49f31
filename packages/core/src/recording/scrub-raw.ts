const secretKey = /^(authorization|proxy-authorization|api[-_]?key|x-api-key|headers|cookie|set-cookie|password|secret|client[-_]?secret|access[-_]?token|bearer)$/i;

/**
 * A copy of a raw provider payload without credentials: keys such as `authorization`,
 * `api_key`, `headers` or `cookie` are dropped at any depth (up to 6 levels; deeper values are
 * kept as they are, since provider payloads are shallow). Only plain objects and arrays are
 * copied; anything else is returned as is. `undefined` fields are removed.
 * @param value - the raw payload
 * @returns the payload without credential fields
 * @example
 * ```ts
 * scrubRaw({ request: { model: 'gpt-4o', headers: { authorization: 'Bearer sk-...' } } });
 * // { request: { model: 'gpt-4o' } }
 * ```
 */
export function scrubRaw(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  if (Array.isArray(value)) return value.map((item) => scrubRaw(item, depth + 1));
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    // Class instances (SDK objects): keep their own enumerable data only.
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (secretKey.test(key)) continue;
    const field = (value as Record<string, unknown>)[key];
    if (field === undefined || typeof field === 'function') continue;
    copy[key] = scrubRaw(field, depth + 1);
  }
  return copy;
}
