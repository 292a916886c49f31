import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The parts of an API key: a public id (stored as is) and a secret (stored only as a hash). */
export interface ApiKeyParts {
  id: string;
  secret: string;
}

const keyPattern = /^twk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/**
 * A new random API key: `twk_<16 hex id>_<43 base64url characters, 256 random bits>`.
 * @returns the key as shown once to its owner, and its parts
 * @internal
 */
export function generateApiKey(): ApiKeyParts & { key: string } {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, secret, key: `twk_${id}_${secret}` };
}

/**
 * The id and secret of a presented key, or undefined when it is not a key's shape.
 * @internal
 */
export function parseApiKey(key: string): ApiKeyParts | undefined {
  const match = keyPattern.exec(key);
  if (match === null) return undefined;
  return { id: match[1] as string, secret: match[2] as string };
}

/**
 * SHA-256 of a secret. A fast hash is enough: the secret has 256 random bits, so there is
 * nothing to guess; what matters is that a copy of the database holds no usable key.
 * @internal
 */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

// compared when a key id is unknown, so that path takes as long as a wrong secret
const decoy = hashSecret('decoy');

/**
 * Whether `secret` hashes to `stored`, compared in constant time.
 * @internal
 */
export function secretMatches(secret: string, stored: Uint8Array | undefined): boolean {
  const given = hashSecret(secret);
  const expected = stored === undefined || stored.length !== given.length ? decoy : stored;
  return timingSafeEqual(given, expected) && stored !== undefined && expected !== decoy;
}
