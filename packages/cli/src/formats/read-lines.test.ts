import { describe, expect, it } from 'vitest';
import { readLines, type TextLine } from './read-lines.js';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part, 'utf8');
}

async function collect(
  source: AsyncIterable<Uint8Array>,
  maxLineBytes?: number,
): Promise<TextLine[]> {
  const lines: TextLine[] = [];
  for await (const line of readLines(source, maxLineBytes === undefined ? {} : { maxLineBytes }))
    lines.push(line);
  return lines;
}

describe('readLines', () => {
  it('splits across chunks, handles CRLF, a BOM, multi-byte characters split between chunks and a last line without newline', async () => {
    const euro = Buffer.from('€', 'utf8');
    async function* split() {
      yield Buffer.concat([Buffer.from('\ufeffa\r\nb'), euro.subarray(0, 1)]);
      yield Buffer.concat([euro.subarray(1), Buffer.from('\n\nlast')]);
    }
    expect(await collect(split())).toEqual([
      { line: 1, text: 'a' },
      { line: 2, text: 'b€' },
      { line: 3, text: '' },
      { line: 4, text: 'last' },
    ]);
  });

  it('reports a line over the limit without keeping it, then goes on', async () => {
    const lines = await collect(chunks('short\n', 'x'.repeat(50), 'y'.repeat(50), '\nnext\n'), 64);
    expect(lines).toEqual([
      { line: 1, text: 'short' },
      { line: 2, tooLong: { bytes: 100 } },
      { line: 3, text: 'next' },
    ]);
  });
});
