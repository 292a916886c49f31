type WellFormedString = string & { isWellFormed(): boolean };

/**
 * Whether a string has no lone UTF-16 surrogate, so it encodes to UTF-8 without loss (native;
 * constant time for V8's one-byte strings).
 * @internal
 */
export function isWellFormed(value: string): boolean {
  return (value as WellFormedString).isWellFormed();
}
