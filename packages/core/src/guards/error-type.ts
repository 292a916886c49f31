/**
 * The type of a thrown value, as tracewarden records it (`exception_type` of a tool result, an
 * attempt's `error_type`, the `type` of a recorded model-call or tool error): an Error's `name`,
 * or its constructor's name when `name` is the inherited `'Error'` (openai 7's error classes do
 * not set it) or not a usable string, else `'Error'`; for another object, its string `name`;
 * for anything else thrown, its `typeof`.
 * Never throws, whatever the value's getters do.
 * @param error - any thrown value
 * @returns a type name such as `'RateLimitError'`, `'TypeError'`, `'Error'` or `'string'`
 * @example
 * ```ts
 * class NotFound extends Error {}
 * errorType(new NotFound('no such user')); // 'NotFound'
 * errorType(new TypeError('bad')); // 'TypeError'
 * errorType('a string'); // 'string'
 * ```
 */
export function errorType(error: unknown): string {
  try {
    if (!(error instanceof Error)) {
      // a plain `{ name, message }` names its type as an Error does
      const name: unknown =
        typeof error === 'object' && error !== null
          ? (error as { name?: unknown }).name
          : undefined;
      return typeof name === 'string' && name !== '' ? name : typeof error;
    }
    const name: unknown = error.name;
    if (typeof name === 'string' && name !== '' && name !== 'Error') return name;
    const constructorName: unknown = (error.constructor as { name?: unknown } | undefined)?.name;
    return typeof constructorName === 'string' && constructorName !== ''
      ? constructorName
      : 'Error';
  } catch {
    // a getter or Proxy trap that throws: the value is all that is known
    return typeof error;
  }
}
