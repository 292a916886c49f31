const secretKey =
  /^(authorization|proxy-authorization|api[-_]?key|x-api-key|headers|cookie|set-cookie|password|secret|client[-_]?secret|access[-_]?token|bearer)$/i;

/** Verdicts of {@link secretKey} per key: provider payloads reuse a small set of keys. */
const verdicts = new Map<string, boolean>();
const maxVerdicts = 2048;

function isSecretKey(key: string): boolean {
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = secretKey.test(key);
    if (verdicts.size < maxVerdicts) verdicts.set(key, verdict);
  }
  return verdict;
}

/** Whether an object (not null) at `depth` has a secret key; primitives are skipped in place, not called for. */
function hasSecret(value: object, depth: number): boolean {
  if (depth > 3) return false;
  if (Array.isArray(value)) {
    for (const item of value)
      if (typeof item === 'object' && item !== null && hasSecret(item, depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (isSecretKey(key)) return true;
    const field = (value as Record<string, unknown>)[key];
    if (typeof field === 'object' && field !== null && hasSecret(field, depth + 1)) return true;
  }
  return false;
}

function copyWithout(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > 3) return value;
  if (Array.isArray(value)) return value.map((item) => copyWithout(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (isSecretKey(key)) continue;
    const field = (value as Record<string, unknown>)[key];
    if (field === undefined || typeof field === 'function') continue;
    copy[key] = copyWithout(field, depth + 1);
  }
  return copy;
}

/**
 * A raw provider payload without credentials: keys such as `authorization`, `api_key`,
 * `headers` or `cookie` are dropped at any depth (up to 4 levels: provider payloads are shallow). A payload without such keys
 * (the usual case: provider bodies carry none) is returned as is, without copying.
 * @param value - the raw payload
 * @returns the payload, or a copy without the credential fields
 * @example
 * ```ts
 * scrubRaw({ request: { model: 'gpt-4o', headers: { authorization: 'Bearer sk-...' } } });
 * // { request: { model: 'gpt-4o' } }
 * ```
 */
export function scrubRaw(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return hasSecret(value, 0) ? copyWithout(value, 0) : value;
}
