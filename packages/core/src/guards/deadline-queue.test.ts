import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineQueue } from './deadline-queue.js';

interface Entry {
  deadline: number;
  done: boolean;
  name: string;
}
const entry = (name: string): Entry => ({ deadline: 0, done: false, name });

describe('DeadlineQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires entries in order at their own deadlines, with one timer', () => {
    const expired: string[] = [];
    const queue = new DeadlineQueue<Entry>(100, (e) => expired.push(e.name));
    queue.add(entry('a'));
    vi.advanceTimersByTime(40);
    queue.add(entry('b'));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(59);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(39);
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['a', 'b']);
    expect(queue.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('expires exactly the entries not settled in time, in order, and lets go of the rest', () => {
    type Op = { kind: 'add' } | { kind: 'settle'; pick: number } | { kind: 'wait'; ms: number };
    const op = fc.oneof(
      fc.constant<Op>({ kind: 'add' }),
      fc.nat(50).map<Op>((pick) => ({ kind: 'settle', pick })),
      fc.integer({ min: 1, max: 60 }).map<Op>((ms) => ({ kind: 'wait', ms })),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        vi.setSystemTime(0);
        const expired: string[] = [];
        const queue = new DeadlineQueue<Entry>(50, (e) => expired.push(e.name));
        // the model: name -> deadline, for entries neither settled nor expired
        const live = new Map<string, number>();
        const all: Entry[] = [];
        const expectedExpired: string[] = [];
        const expire = (until: number) => {
          for (const [name, deadline] of [...live].sort((a, b) => a[1] - b[1])) {
            if (deadline > until) break;
            live.delete(name);
            expectedExpired.push(name);
          }
        };
        for (const o of ops) {
          if (o.kind === 'add') {
            const e = entry(`e${all.length}`);
            all.push(e);
            queue.add(e);
            live.set(e.name, Date.now() + 50);
          } else if (o.kind === 'settle' && all.length > 0) {
            const e = all[o.pick % all.length]!;
            expect(queue.settle(e)).toBe(live.delete(e.name));
          } else if (o.kind === 'wait') {
            const until = Date.now() + o.ms;
            vi.advanceTimersByTime(o.ms);
            expire(until);
          }
          expect(expired).toEqual(expectedExpired);
          expect(queue.size).toBe(live.size);
          expect(queue.held).toBeGreaterThanOrEqual(live.size);
          if (live.size === 0) expect(queue.held).toBe(0);
        }
      }),
    );
  });

  it('never expires a settled entry, and settles once', () => {
    const expired: string[] = [];
    const queue = new DeadlineQueue<Entry>(10, (e) => expired.push(e.name));
    const a = entry('a');
    const b = entry('b');
    queue.add(a);
    queue.add(b);
    expect(queue.settle(a)).toBe(true);
    expect(queue.settle(a)).toBe(false);
    vi.advanceTimersByTime(10);
    expect(expired).toEqual(['b']);
    expect(queue.settle(b)).toBe(false);
  });

  it('keeps many settled calls down to one pending timer and drains it', () => {
    const expired: string[] = [];
    const queue = new DeadlineQueue<Entry>(1000, (e) => expired.push(e.name));
    for (let i = 0; i < 4500; i++) {
      const e = entry(String(i));
      queue.add(e);
      queue.settle(e);
      vi.advanceTimersByTime(1);
    }
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(2000);
    expect(expired).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('serves entries added after the timer was set for a later deadline', () => {
    const expired: string[] = [];
    const queue = new DeadlineQueue<Entry>(50, (e) => expired.push(e.name));
    const a = entry('a');
    queue.add(a);
    queue.settle(a);
    vi.advanceTimersByTime(30);
    queue.add(entry('b'));
    vi.advanceTimersByTime(20);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(30);
    expect(expired).toEqual(['b']);
  });
});

describe('DeadlineQueue with real timers', () => {
  it('keeps the process alive only while an entry is pending', () => {
    const queue = new DeadlineQueue<Entry>(60_000, () => {});
    const a = entry('a');
    queue.add(a);
    expect(queue.keepsProcessAlive).toBe(true);
    queue.settle(a);
    // the timer still exists (it drains later) but no longer holds the event loop open
    expect(queue.keepsProcessAlive).toBe(false);
    const b = entry('b');
    queue.add(b);
    expect(queue.keepsProcessAlive).toBe(true);
    queue.settle(b);
    expect(queue.keepsProcessAlive).toBe(false);
  });
});
