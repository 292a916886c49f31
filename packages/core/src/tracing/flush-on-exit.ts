/** A tracer registered with `flushOnExit: true`. @internal */
export interface ExitFlushable {
  readonly traceId: string;
  /** Blocks were written to sinks since the last flush began. */
  unflushed(): boolean;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const registered = new Set<ExitFlushable>();
const signals = ['SIGINT', 'SIGTERM'] as const;
let installed = false;
let flushing = false;

function warn(what: string, error: unknown): void {
  let reason: string;
  try {
    reason = error instanceof Error ? error.message : String(error);
  } catch {
    reason = 'an unreadable error';
  }
  process.stderr.write(`[tracewarden] ${what} failed: ${reason}\n`);
}

/**
 * `beforeExit`: the event loop is empty, so the process is about to end on its own. Flushing
 * schedules work, after which `beforeExit` fires again; nothing is then left unflushed and the
 * process ends.
 */
function onBeforeExit(): void {
  if (flushing) return;
  const due = [...registered].filter((tracer) => tracer.unflushed());
  if (due.length === 0) return;
  flushing = true;
  void Promise.all(
    due.map((tracer) =>
      tracer
        .flush()
        .catch((error: unknown) => warn(`flush of trace ${tracer.traceId} at exit`, error)),
    ),
  ).finally(() => {
    flushing = false;
  });
}

/**
 * SIGINT / SIGTERM: shuts every registered tracer down, then lets the signal do what it would
 * have done: the default (ending the process) when no other listener handles it.
 */
function onSignal(signal: NodeJS.Signals): void {
  const all = [...registered];
  uninstall();
  void Promise.all(
    all.map((tracer) =>
      tracer
        .shutdown()
        .catch((error: unknown) => warn(`shutdown of trace ${tracer.traceId} on ${signal}`, error)),
    ),
  ).finally(() => {
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  });
}

function install(): void {
  installed = true;
  process.on('beforeExit', onBeforeExit);
  for (const signal of signals) process.on(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('beforeExit', onBeforeExit);
  for (const signal of signals) process.off(signal, onSignal);
}

/**
 * Flushes `tracer` when the process is about to end on its own (`beforeExit`) and shuts it down
 * on SIGINT / SIGTERM, until {@link stopFlushOnExit}. One set of process listeners serves every
 * registered tracer.
 * @internal
 */
export function flushOnExit(tracer: ExitFlushable): void {
  if (typeof process === 'undefined' || typeof process.on !== 'function') return;
  registered.add(tracer);
  if (!installed) install();
}

/** The tracer was shut down: forget it, and remove the listeners when none is left. @internal */
export function stopFlushOnExit(tracer: ExitFlushable): void {
  registered.delete(tracer);
  if (registered.size === 0) uninstall();
}

/** Registered tracers and whether the listeners are installed (tests). @internal */
export function flushOnExitState(): { tracers: number; installed: boolean } {
  return { tracers: registered.size, installed };
}

/** Runs the `beforeExit` handler now (tests). @internal */
export function runBeforeExit(): void {
  onBeforeExit();
}
