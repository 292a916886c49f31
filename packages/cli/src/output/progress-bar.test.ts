import { describe, expect, it } from 'vitest';
import { createProgressBar } from './progress-bar.js';

function output(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, isTTY, columns: 120, write: (text: string) => writes.push(text) };
}

describe('createProgressBar', () => {
  it('draws on a terminal, at most every 100 ms, and erases itself', () => {
    const out = output(true);
    let now = 1_000;
    const bar = createProgressBar({
      output: out,
      total: 2 * 1024 * 1024,
      label: 'big.jsonl',
      now: () => now,
    });
    bar.update(1024 * 1024, 5000);
    expect(out.writes).toHaveLength(1);
    expect(out.writes[0]).toMatch(
      /^\rbig\.jsonl \[={15}> {14}\] {2}50% {2}1\.0 MiB \/ 2\.0 MiB {2}5,000 records\u001b\[K$/,
    );
    now += 50;
    bar.update(1.5 * 1024 * 1024);
    expect(out.writes).toHaveLength(1);
    now += 100;
    bar.update(2 * 1024 * 1024);
    expect(out.writes[1]).toContain('100%');
    bar.clear();
    expect(out.writes[2]).toBe('\r\u001b[K');
    bar.clear();
    expect(out.writes).toHaveLength(3);
  });

  it('draws nothing when the output is not a terminal (pipes and logs stay clean)', () => {
    const out = output(false);
    const bar = createProgressBar({ output: out, total: 100, label: 'x', now: () => 10_000 });
    bar.update(50, 1);
    bar.clear();
    expect(out.writes).toEqual([]);
  });
});
