import { describe, expect, it } from 'vitest';
import { guard } from '../guards/guard.js';
import type { TraceEntry } from '../model/index.js';
import { createModelCallRecorder } from '../recording/create-model-call-recorder.js';
import { createTracer } from './create-tracer.js';
import type { LogMessageInput, Tracer } from './types.js';

// createTracer's tracers give guards and the model-call recorder direct paths that skip
// recordEntry / logMessage. A wrapper with its own recordEntry or logMessage (redaction,
// tagging) must still see every call and response, however it wraps the tracer.

function redactingWrappers(base: Tracer) {
  const seen: string[] = [];
  const logMessage = (input: LogMessageInput) => {
    seen.push(`${input.role}:${String(input.content)}`);
    return base.logMessage({ ...input, content: '[redacted]' });
  };
  const recordEntry = (entry: TraceEntry) => {
    seen.push(`entry:${entry.call.tool_name}`);
    return base.recordEntry(entry);
  };
  const proxy = new Proxy(base, {
    get: (target, key, receiver) =>
      key === 'logMessage'
        ? logMessage
        : key === 'recordEntry'
          ? recordEntry
          : Reflect.get(target, key, receiver),
  });
  const derived = Object.assign(Object.create(base) as Tracer, { logMessage, recordEntry });
  const spread = { ...base, logMessage, recordEntry } as Tracer;
  // patched in place: the tracer object itself, its methods replaced
  const patched = base;
  const original = { logMessage: base.logMessage, recordEntry: base.recordEntry };
  return {
    seen,
    wrappers: { proxy, derived, spread },
    patch() {
      patched.logMessage = (input) => {
        seen.push(`${input.role}:${String(input.content)}`);
        return original.logMessage({ ...input, content: '[redacted]' });
      };
      patched.recordEntry = (entry) => {
        seen.push(`entry:${entry.call.tool_name}`);
        return original.recordEntry(entry);
      };
      return patched;
    },
  };
}

describe('direct recording paths and wrapped tracers', () => {
  const wrap = (base: Tracer, kind: 'proxy' | 'derived' | 'spread' | 'patched') => {
    const made = redactingWrappers(base);
    return { seen: made.seen, tracer: kind === 'patched' ? made.patch() : made.wrappers[kind] };
  };

  for (const kind of ['proxy', 'derived', 'spread', 'patched'] as const) {
    it(`a ${kind} wrapper's logMessage sees every model response`, () => {
      const base = createTracer();
      const { seen, tracer } = wrap(base, kind);
      const recorder = createModelCallRecorder({ tracer });
      recorder
        .start({ provider: 'p', model: 'm', messages: [{ role: 'user', content: 'hi' }] })
        .finish({ text: 'secret answer' });
      expect(seen).toEqual(['user:hi', 'assistant:secret answer']);
      expect(base.blocks().map((b) => (b.payload as { content?: unknown }).content)).toEqual([
        '[redacted]',
        '[redacted]',
      ]);
    });

    it(`a ${kind} wrapper's recordEntry sees every guarded call`, async () => {
      const base = createTracer();
      base.logMessage({ role: 'user', content: 'go' });
      const { seen, tracer } = wrap(base, kind);
      await guard(async () => 'ok', { name: 'lookup', tracer })();
      expect(seen).toEqual(['entry:lookup']);
      expect(base.blocks().map((b) => b.sub_type)).toEqual(['MESSAGE', 'TOOL_CALL', 'TOOL_RESULT']);
    });
  }
});
