// Text primitives below both `model/` and `validation/` (UTF-16 well-formedness, UTF-8 byte
// counts, JSON size bounds, ISO timestamps). Internal: not re-exported by the package.
export { isAfterInShortlex } from './is-after-in-shortlex.js';
export { isIsoTimestamp } from './is-iso-timestamp.js';
export { isWellFormed } from './is-well-formed.js';
export { jsonByteBound } from './json-byte-bound.js';
export { stringByteLength } from './string-byte-length.js';
