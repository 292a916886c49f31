/** An entry of a {@link DeadlineQueue}. */
export interface DeadlineEntry {
  /** Epoch ms at which the entry expires. Set by {@link DeadlineQueue.add}. */
  deadline: number;
  /** Whether the entry was settled (or expired); a settled entry never expires. */
  done: boolean;
}

/**
 * Deadlines that all share one duration, served by one timer.
 *
 * Setting and clearing a Node timer per call costs ~0.5–1 µs, more than the rest of a guarded
 * call. With one duration, deadlines expire in the order they were added, so a FIFO and one timer
 * set for the oldest pending deadline serve every call: `add` is a push, `settle` a flag. The
 * timer keeps the process alive only while some entry is pending (it is unref'd when the last
 * one settles), exactly as a per-call timer would.
 *
 * @internal
 */
export class DeadlineQueue<E extends DeadlineEntry> {
  // entries[head, tail) are live; slots outside are cleared but kept: emptying the array (length 0)
  // would free its store and the next add would allocate a new one, once per sequential call
  private entries: (E | undefined)[] = [];
  private head = 0;
  private tail = 0;
  private pending = 0;
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private timerAt = 0;
  /** Set while {@link fire} walks the entries: settles then leave the array to it. */
  private firing = false;

  constructor(
    private readonly durationMs: number,
    private readonly onExpire: (entry: E) => void,
  ) {}

  /**
   * Starts `entry`'s deadline, `durationMs` from now.
   * @param now - the current `Date.now()`, when the caller already read it (a clock read costs)
   */
  add(entry: E, now: number = Date.now()): void {
    entry.deadline = now + this.durationMs;
    const entries = this.entries;
    if (this.tail === entries.length) entries.push(entry);
    else entries[this.tail] = entry;
    this.tail++;
    this.pending++;
    const timer = this.timer;
    if (timer === undefined) this.schedule(now, entry.deadline);
    else if (this.pending === 1) timer.ref();
  }

  /** Marks `entry` settled: it will not expire. Returns false if it had already settled or expired. */
  settle(entry: E): boolean {
    if (entry.done) return false;
    entry.done = true;
    if (--this.pending === 0) {
      this.timer?.unref();
      // nothing pending: drop the settled entries now, not when the timer fires (`durationMs`
      // later), or every call of that window stays reachable and the GC pays for it
      if (!this.firing) {
        const entries = this.entries;
        for (let i = this.head; i < this.tail; i++) entries[i] = undefined;
        this.head = 0;
        this.tail = 0;
      }
    } else if (!this.firing) {
      // settled entries at the head will never expire: let them go
      const entries = this.entries;
      while (this.head < this.tail && entries[this.head]!.done) entries[this.head++] = undefined;
      if (this.head > 1024 && this.head * 2 > this.tail) this.compact();
    }
    return true;
  }

  /** Moves the live entries to the front of a new array. */
  private compact(): void {
    this.entries = this.entries.slice(this.head, this.tail);
    this.tail -= this.head;
    this.head = 0;
  }

  private schedule(now: number, at: number): void {
    this.timerAt = at;
    this.timer = setTimeout(this.fire, Math.max(0, at - now));
    if (this.pending === 0) this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    const now = Date.now();
    const entries = this.entries;
    this.firing = true;
    try {
      while (this.head < this.tail) {
        const entry = entries[this.head]!;
        if (!entry.done) {
          if (entry.deadline > now) break;
          entry.done = true;
          this.pending--;
          this.onExpire(entry);
        }
        entries[this.head++] = undefined;
      }
    } finally {
      this.firing = false;
    }
    if (this.head === this.tail) {
      this.entries = [];
      this.head = 0;
      this.tail = 0;
      return;
    }
    if (this.head > 1024 && this.head * 2 > this.tail) this.compact();
    this.schedule(now, this.entries[this.head]!.deadline);
  };

  /** Number of entries not yet settled or expired. */
  get size(): number {
    return this.pending;
  }

  /** @internal for tests: whether the timer holds the event loop open (undefined: no timer). */
  get keepsProcessAlive(): boolean | undefined {
    return this.timer?.hasRef();
  }

  /** @internal for tests: how many entries the queue still references. */
  get held(): number {
    let count = 0;
    for (const entry of this.entries) if (entry !== undefined) count++;
    return count;
  }

  /** @internal for tests: when the single timer fires next (epoch ms), if one is set. */
  get nextFireAt(): number | undefined {
    return this.timer === undefined ? undefined : this.timerAt;
  }
}
