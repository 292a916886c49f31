import { describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import { BlockSchema } from '../model/index.js';
import { message } from './__fixtures__/build-blocks.js';
import { createBlockValidator } from './create-block-validator.js';
import { validateBlocks } from './validate-blocks.js';

// seed 002: a MESSAGE needs "non-empty content"; seed 000: TextContent requires `text: str`
const withContent = (content: unknown, role = 'user') => ({
  ...message('tb_m'),
  payload: { role, content },
});

function problems(content: unknown, role?: string) {
  return validateBlocks([withContent(content, role)]).errors.map((error) => [
    error.code,
    error.httpStatus,
    error.details.field,
  ]);
}

describe('MESSAGE content parts', () => {
  it.each([
    ['a text part with empty text', [{ type: 'text', text: '' }]],
    ['a text part without text', [{ type: 'text' }]],
    ['a text part with null text', [{ type: 'text', text: null }]],
    ['only text parts without text', [{ type: 'text' }, { type: 'text', text: '' }]],
    ['only text parts with null or no text', [{ type: 'text', text: null }, { type: 'text' }]],
  ])('%s is empty content: 422 VALIDATION, as "" and [] are', (_name, content) => {
    expect(problems(content)).toEqual([['VALIDATION', 422, 'content']]);
    expect(problems(content, 'system')).toEqual([['VALIDATION', 422, 'content']]);
    const validator = createBlockValidator();
    expect(() => validator.accept(withContent(content))).toThrow(TraceError);
    expect(validator.size).toBe(0);
  });

  it.each([
    ['an image part', [{ type: 'image', image_url: 'https://x/y.png' }]],
    ['an audio part', [{ type: 'audio' }]],
    ['a file part', [{ type: 'file' }]],
    ['an unknown part', [{ type: 'something-else' }]],
    ['an empty text part beside an image', [{ type: 'text', text: '' }, { type: 'image' }]],
    ['a text part with text', [{ type: 'text' }, { type: 'text', text: 'hi' }]],
  ])('%s counts as content', (_name, content) => {
    expect(problems(content)).toEqual([]);
  });

  it('an assistant message may still have empty text parts (decision 001)', () => {
    expect(problems([{ type: 'text' }], 'assistant')).toEqual([]);
  });

  it('a text part with null text is one without text: accepted on an assistant message', () => {
    // some providers write `text: null`; it says nothing, as a missing `text` does
    expect(problems([{ type: 'text', text: null }], 'assistant')).toEqual([]);
    expect(problems([{ type: 'image' }, { type: 'text', text: null }], 'assistant')).toEqual([]);
    expect(
      problems([
        { type: 'text', text: null },
        { type: 'text', text: 'hi' },
      ]),
    ).toEqual([]);
    const validator = createBlockValidator();
    expect(() =>
      validator.accept(withContent([{ type: 'text', text: null }], 'assistant')),
    ).not.toThrow();
  });

  it('a user message of only null-text parts gets the empty-content error, not a text-type one', () => {
    const report = validateBlocks([withContent([{ type: 'text', text: null }])]);
    expect(report.errors.map((error) => [error.code, error.details.field])).toEqual([
      ['VALIDATION', 'content'],
    ]);
    expect(report.errors[0]?.message).toContain('its text parts have no text');
  });

  it('a text part whose text is present but not a string is a VALIDATION error naming the path', () => {
    const report = validateBlocks([withContent([{ type: 'text', text: 42 }])]);
    expect(report.errors.map((error) => [error.code, error.details.field])).toEqual([
      ['VALIDATION', 'content.0.text'],
    ]);
    expect(report.errors[0]?.message).toContain('payload.content[0].text must be a string, got');
    expect(problems([{ type: 'image' }, { type: 'text', text: false }], 'assistant')).toEqual([
      ['VALIDATION', 422, 'content.1.text'],
    ]);
  });

  it('the public zod BlockSchema reads content parts as the validator does', () => {
    // a schema user (server route, form) must not accept a block validateBlocks refuses
    const cases: [unknown, string, boolean][] = [
      [[{ type: 'text', text: '' }], 'system', false],
      [[{ type: 'text' }, { type: 'text', text: null }], 'user', false],
      [[{ type: 'text', text: 42 }], 'user', false],
      [[{ type: 'image' }, { type: 'text', text: false }], 'assistant', false],
      [[{ type: 'text', text: '' }], 'assistant', true],
      [[{ type: 'text', text: '' }, { type: 'image' }], 'user', true],
      [[{ type: 'text', text: 'hi' }], 'user', true],
    ];
    for (const [content, role, valid] of cases) {
      // the schema reads the wire form, where block_type is written (the validator derives it)
      const block = { ...withContent(content, role), block_type: 'MESSAGE' };
      expect([content, role, BlockSchema.safeParse(block).success]).toEqual([content, role, valid]);
      expect([content, role, validateBlocks([block]).errors.length === 0]).toEqual([
        content,
        role,
        valid,
      ]);
    }
  });
});
