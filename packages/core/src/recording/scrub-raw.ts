const secretKey =
  /^(authorization|proxy-authorization|api[-_]?key|x-api-key|headers|cookie|set-cookie|password|secret|client[-_]?secret|access[-_]?token|bearer)$/i;

/** Verdicts of {@link secretKey} per key: provider payloads reuse a small set of keys. */
const verdicts = new Map<string, boolean>();
const maxVerdicts = 2048;

function isSecretKey(key: string): boolean {
  // Every secret key is 6-19 characters long and starts with one of a, b, c, h, p, s, x (the
  // regex folds ASCII case only): most keys of a provider payload are ruled out without a lookup.
  const length = key.length;
  if (length < 6 || length > 19) return false;
  const first = key.charCodeAt(0) | 0x20;
  if (
    first !== 0x61 && // a
    first !== 0x62 && // b
    first !== 0x63 && // c
    first !== 0x68 && // h
    first !== 0x70 && // p
    first !== 0x73 && // s
    first !== 0x78 // x
  )
    return false;
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = secretKey.test(key);
    if (verdicts.size < maxVerdicts) verdicts.set(key, verdict);
  }
  return verdict;
}

/**
 * Whether an object (not null) at `depth` (0-3) has a secret key; primitives are skipped in
 * place, and nothing deeper than depth 3 is looked at, so neither is called for.
 */
function hasSecret(value: object, depth: number): boolean {
  const deeper = depth < 3;
  if (Array.isArray(value)) {
    if (!deeper) return false;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null && hasSecret(item, depth + 1)) return true;
    }
    return false;
  }
  for (const key in value) {
    if (isSecretKey(key)) return true;
    if (!deeper) continue;
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
