/**
 * What a buffering sink tells the process-exit check about itself. Only sinks holding unwritten
 * blocks are registered, so an idle sink costs nothing and is collected normally.
 * @internal
 */
export interface UnwrittenBlocks {
  /** Where the blocks go, for the warning. */
  readonly path: string;
  /** Blocks buffered and not yet written (including those of an append still in flight). */
  unwrittenBlocks(): number;
  /** Blocks buffered and not yet handed to an append (a sink's `pendingBlocks`), if it counts them. */
  pendingBlocks?(): number;
  /** Writes what is buffered synchronously; returns how many blocks it could not write. */
  writeNow(): number;
  /** Write at exit instead of warning (a tracer with `flushOnExit` asked for it). */
  writeAtExit: boolean;
}

const registered = new Set<UnwrittenBlocks>();
let listening = false;
/** Set by tests to see the warning; the default prints it to stderr. @internal */
let report: (message: string) => void = (message) => {
  process.stderr.write(`${message}\n`);
};

/**
 * Tracks a sink with unwritten blocks until {@link forgetUnwritten}. At process exit, sinks
 * that asked for it write synchronously; any block still unwritten then is reported in one
 * warning for the whole process, never silently dropped.
 * @internal
 */
export function trackUnwritten(sink: UnwrittenBlocks): void {
  registered.add(sink);
  if (!listening && typeof process !== 'undefined' && typeof process.once === 'function') {
    listening = true;
    process.once('exit', checkAtExit);
  }
}

/** The sink has nothing left to write. @internal */
export function forgetUnwritten(sink: UnwrittenBlocks): void {
  registered.delete(sink);
}

/** @internal (tests) */
export function setExitReporter(reporter: (message: string) => void): void {
  report = reporter;
}

/** What {@link checkAtExit} does, callable without exiting. @internal */
export function checkAtExit(): void {
  listening = false;
  let lost = 0;
  const paths: string[] = [];
  for (const sink of registered) {
    let left = sink.unwrittenBlocks();
    if (left > 0 && sink.writeAtExit) left = sink.writeNow();
    if (left > 0) {
      lost += left;
      if (paths.length < 3) paths.push(sink.path);
    }
  }
  registered.clear();
  if (lost === 0) return;
  const where = `${paths.join(', ')}${paths.length < 3 ? '' : ', ...'}`;
  report(
    `[tracewarden] ${lost} trace block${lost === 1 ? ' was' : 's were'} still buffered for ${where} when the process exited and ${lost === 1 ? 'was' : 'were'} not written. Call await tracer.shutdown() (or flush()) before exiting, or create the tracer with flushOnExit: true.`,
  );
}
