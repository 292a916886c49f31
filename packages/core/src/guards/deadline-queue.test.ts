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
