import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/configuration-error.js';
import { createConsoleSink } from '../sinks/create-console-sink.js';
import { createJsonlFileSink } from '../sinks/create-jsonl-file-sink.js';
import { createMemorySink } from '../sinks/create-memory-sink.js';
import { createTracer } from './create-tracer.js';
import { withTrace } from './with-trace.js';

function rejection(make: () => unknown): ConfigurationError {
  try {
    make();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('tracer and sink options are checked where they are given', () => {
  it('rejects a misspelt tracer option', () => {
    const error = rejection(() => createTracer({ sink: [createMemorySink()] } as never));
    expect(error.entryPoint).toBe('createTracer');
    expect(error.path).toBe('sink');
    expect(error.message).toContain('did you mean "sinks"?');
  });

  it('rejects a sink that is not a sink, and byte limits that are not whole numbers', () => {
    expect(rejection(() => createTracer({ sinks: [{ write() {} }] as never })).path).toBe(
      'sinks[0]',
    );
    expect(
      rejection(() => createTracer({ limits: { messageBytes: Number.NaN } })).issues[0],
    ).toMatchObject({ path: 'limits.messageBytes', received: 'NaN' });
  });

  it('accepts every documented tracer option', () => {
    const tracer = createTracer({
      traceId: 'tr_test',
      sinks: [createMemorySink()],
      limits: { messageBytes: 10 },
      clock: Date.now,
      onError: () => {},
    });
    expect(tracer.traceId).toBe('tr_test');
  });

  it('rejects bad sink options', () => {
    expect(rejection(() => createJsonlFileSink('a.jsonl', { bufferByte: 10 } as never)).path).toBe(
      'bufferByte',
    );
    expect(rejection(() => createJsonlFileSink('')).path).toBe('path');
    expect(rejection(() => createConsoleSink({ colour: true } as never)).message).toContain(
      'did you mean "color"?',
    );
    expect(rejection(() => createConsoleSink({ maxWidth: 0 })).path).toBe('maxWidth');
  });

  it('withTrace rejects what is not a tracer where it is given', () => {
    const error = rejection(() => withTrace((() => {}) as never, () => 1));
    expect(error.entryPoint).toBe('withTrace');
    expect(error.path).toBe('tracer');
    expect(withTrace(createTracer(), () => 2)).toBe(2);
  });
});
