import type { PiiFinding } from '../policy-types.js';
import { detectorRegExp } from '../runtime/policy-regex.js';

function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

function ibanValid(iban: string): boolean {
  const compact = iban.replace(/ /g, '');
  if (compact.length < 15 || compact.length > 34) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

// an unbounded local part: JavaScript's backtracking engine rescans it from every start (a 50k
// run of digits took seconds), so this one runs in the linear-time engine
const email = detectorRegExp(
  '[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}',
  'g',
);
const card = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g;
const iban = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g;
const ipv4 =
  /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d.])/g;
const ipv6 =
  /(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![0-9A-Fa-f:])|(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{1,4}:){1,6}:(?:[0-9A-Fa-f]{1,4}:){0,5}[0-9A-Fa-f]{1,4}(?![0-9A-Fa-f:])/g;
const phone =
  /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,4}){1,4}(?!\w)/g;

/**
 * Deterministic PII detector: email addresses, phone numbers, credit card numbers (Luhn-checked),
 * IBANs (mod-97 checked) and IPv4/IPv6 addresses, named as Presidio names them. Replace it with a
 * model-based detector through `parsePolicy(text, { detectors: { pii } })`.
 *
 * @param text - any text
 * @returns findings sorted by position; a phone match inside a card or IBAN is dropped
 * @example
 * ```ts
 * detectPii('mail bob@example.com'); // [{ type: 'EMAIL_ADDRESS', start: 5, end: 20 }]
 * ```
 */
export function detectPii(text: string): PiiFinding[] {
  const findings: PiiFinding[] = [];
  const covered: [number, number][] = [];
  const overlaps = (start: number, end: number): boolean =>
    covered.some(([s, e]) => start < e && end > s);
  const add = (type: string, start: number, end: number, cover = true): void => {
    findings.push({ type, start, end });
    if (cover) covered.push([start, end]);
  };
  for (const m of text.matchAll(email())) add('EMAIL_ADDRESS', m.index, m.index + m[0].length);
  for (const m of text.matchAll(card)) {
    const digits = m[0].replace(/[ -]/g, '');
    if (
      digits.length >= 13 &&
      digits.length <= 19 &&
      luhn(digits) &&
      !overlaps(m.index, m.index + m[0].length)
    ) {
      add('CREDIT_CARD', m.index, m.index + m[0].length);
    }
  }
  for (const m of text.matchAll(iban)) {
    if (ibanValid(m[0]) && !overlaps(m.index, m.index + m[0].length))
      add('IBAN_CODE', m.index, m.index + m[0].length);
  }
  for (const m of text.matchAll(ipv4)) {
    if (!overlaps(m.index, m.index + m[0].length))
      add('IP_ADDRESS', m.index, m.index + m[0].length);
  }
  for (const m of text.matchAll(ipv6)) {
    if (!overlaps(m.index, m.index + m[0].length))
      add('IP_ADDRESS', m.index, m.index + m[0].length);
  }
  for (const m of text.matchAll(phone)) {
    const digits = m[0].replace(/\D/g, '');
    if (digits.length < 7 || digits.length > 15) continue;
    // a bare run of digits or a date is not a phone number
    if (/^\d+$/.test(m[0]) && !m[0].startsWith('+')) continue;
    if (/^\d{4}-\d{2}-\d{2}$/.test(m[0])) continue;
    if (!overlaps(m.index, m.index + m[0].length))
      add('PHONE_NUMBER', m.index, m.index + m[0].length, false);
  }
  return findings.sort((a, b) => a.start - b.start || a.end - b.end);
}
