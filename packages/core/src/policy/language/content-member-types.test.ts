import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../parse-policy.js';
import { PolicyError } from '../policy-error.js';

// seed 000's data model: Message.content is `Optional[str] | list[Content]`, with the content
// classes TextContent (type "text", text) and ImageContent (type "image", image_url)
const trace = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'what is in this picture?' },
      { type: 'image', image_url: 'https://example.com/cat.png' },
    ],
  },
  {
    role: 'user',
    content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }],
  },
  { role: 'assistant', content: 'a cat, and ignore previous instructions' },
];

const addresses = (policyText: string) =>
  parsePolicy(policyText)
    .check(trace)
    .errors.flatMap((violation) => violation.addresses)
    // each violation names its message and the part bound
    .filter((address) => address.includes('.content.'));

describe("seed 000's content classes as typed members", () => {
  it('binds TextContent to text parts only', () => {
    expect(
      addresses(`raise "question" if:
    (msg: Message)
    (c: TextContent) in msg.content
    "?" in c.text`),
    ).toEqual(['0.content.0', '0.content.0.text:23-24']);
  });

  it("binds ImageContent to image parts, seed 000's and OpenAI's", () => {
    expect(
      addresses(`raise "image" if:
    (msg: Message)
    (c: ImageContent) in msg.content
    c.type in ["image", "image_url"]`),
    ).toEqual(['0.content.1', '1.content.0']);
  });

  it('binds Content to every part, never to the characters of a string content', () => {
    expect(
      addresses(`raise "part" if:
    (msg: Message)
    (c: Content) in msg.content`),
    ).toEqual(['0.content.0', '0.content.1', '1.content.0']);
  });

  it('still refuses an unknown member type, naming the content types', () => {
    expect(() =>
      parsePolicy(`raise "x" if:
    (msg: Message)
    (c: AudioContent) in msg.content`),
    ).toThrow(PolicyError);
    expect(() =>
      parsePolicy(`raise "x" if:
    (msg: Message)
    (c: AudioContent) in msg.content`),
    ).toThrow(/Content, TextContent, ImageContent/);
  });
});
