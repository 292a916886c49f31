import { describe, expect, it } from 'vitest';
import { nextCallId } from './next-call-id.js';

const uuidForm = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('nextCallId', () => {
  it('counts in the last group across the two-digit wrap, in UUID form', () => {
    const ids = Array.from({ length: 1_000 }, () => nextCallId());
    const prefix = ids[0]!.slice(0, 24);
    const first = Number.parseInt(ids[0]!.slice(24), 16);
    ids.forEach((id, i) => {
      expect(id).toMatch(uuidForm);
      expect(id.slice(0, 24)).toBe(prefix);
      expect(Number.parseInt(id.slice(24), 16)).toBe(first + i);
    });
    expect(new Set(ids).size).toBe(ids.length);
  });
});
