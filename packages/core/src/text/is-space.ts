/**
 * Whether a UTF-16 code unit is white space as JavaScript's `\s` means it (Unicode `Zs`, the
 * line terminators, tab, vertical tab, form feed and the byte order mark).
 * @internal
 */
export const isSpace = (c: number): boolean =>
  (c >= 9 && c <= 13) ||
  c === 32 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;
