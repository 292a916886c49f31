/** A text part opened while another was open: its text waits for the parts before it. */
interface Waiting {
  readonly id: string;
  text: string;
  ended: boolean;
}

/**
 * Puts the deltas of a stream's text (or reasoning) parts in the order the AI SDK assembles
 * them: the SDK's text is each part's text, parts in the order they opened, so two parts whose
 * deltas interleave (`a`, `b`, `a`, `b`) read as all of `a`, then all of `b`. The deltas of the
 * part opened first pass straight through (the only path of a stream with one part open at a
 * time); a part opened while another is open waits in a buffer until every part before it ended,
 * or the stream ended ({@link PartOrder.drain}).
 */
export class PartOrder {
  /** The part whose deltas pass straight through; undefined when no part is open. */
  current: string | undefined;
  /** Made when a second part opens while one is open (rare). */
  private waiting: Waiting[] | undefined;

  /** A part opens (its start part, or a delta of a part never started). */
  open(id: string): void {
    if (this.current === undefined && this.waiting === undefined) this.current = id;
    else if (id !== this.current && this.openWaiting(id) === undefined)
      (this.waiting ??= []).push({ id, text: '', ended: false });
  }

  /** The text of a delta to record now: the delta itself, or nothing while its part waits. */
  delta(id: string, delta: string): string | undefined {
    if (id === this.current) return delta;
    if (this.current === undefined && this.waiting === undefined) {
      this.current = id;
      return delta;
    }
    let waiting = this.openWaiting(id);
    if (waiting === undefined) {
      waiting = { id, text: '', ended: false };
      (this.waiting ??= []).push(waiting);
    }
    waiting.text += delta;
    return undefined;
  }

  /** A part ends: the text of the parts that waited for it, now due (undefined when none). */
  end(id: string): string | undefined {
    if (id !== this.current) {
      const waiting = this.openWaiting(id);
      if (waiting !== undefined) waiting.ended = true;
      return undefined;
    }
    this.current = undefined;
    const waiting = this.waiting;
    if (waiting === undefined) return undefined;
    let due = '';
    while (waiting.length > 0) {
      const next = waiting.shift() as Waiting;
      due += next.text;
      if (!next.ended) {
        this.current = next.id;
        break;
      }
    }
    if (waiting.length === 0) this.waiting = undefined;
    return due === '' ? undefined : due;
  }

  /** The stream ended: the text still waiting, in order (empty when none). */
  drain(): string {
    const waiting = this.waiting;
    this.waiting = undefined;
    this.current = undefined;
    if (waiting === undefined) return '';
    let due = '';
    for (const part of waiting) due += part.text;
    return due;
  }

  private openWaiting(id: string): Waiting | undefined {
    const waiting = this.waiting;
    if (waiting === undefined) return undefined;
    for (const part of waiting) if (part.id === id && !part.ended) return part;
    return undefined;
  }
}
