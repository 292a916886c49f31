import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { guardOptionsSchema, guardToolsOptionsSchema } from '../guards/guard-options-schema.js';
import { createConsoleSink } from '../sinks/create-console-sink.js';
import { consoleSinkOptionsSchema } from '../sinks/sink-options-schema.js';
import { createTracer } from '../tracing/create-tracer.js';
import { tracerOptionsSchema } from '../tracing/tracer-options-schema.js';
import { ConfigurationError } from './configuration-error.js';

describe('entry points whose options are all optional skip zod when given none', () => {
  it('their schemas really accept no options (the allOptional flag tells the truth)', () => {
    for (const schema of [
      tracerOptionsSchema,
      guardOptionsSchema,
      guardToolsOptionsSchema,
      consoleSinkOptionsSchema,
    ])
      expect(schema().safeParse({}).success).toBe(true);
  });

  it('options that are given are still checked (a typo, a Proxy whose reads throw)', () => {
    expect(() => createTracer({ sink: [] } as never)).toThrow(ConfigurationError);
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no');
        },
      },
    );
    expect(() => createTracer(hostile as never)).toThrow(ConfigurationError);
    expect(() => createConsoleSink({ colour: true } as never)).toThrow(ConfigurationError);
  });

  it('a process that makes a tracer, a guard and a console sink with no options never loads zod', () => {
    const core = fileURLToPath(new URL('../index.ts', import.meta.url));
    const script = `
      import { createRequire } from 'node:module';
      const core = await import(${JSON.stringify(core)});
      const tracer = core.createTracer();
      core.guard(async () => 1);
      core.guard(async () => 1, {});
      core.createConsoleSink();
      tracer.logMessage({ role: 'user', content: 'hi' });
      const cache = createRequire(import.meta.url).cache;
      console.log(Object.keys(cache).some((path) => /[\\\\/]zod[\\\\/]/.test(path)) ? 'zod loaded' : 'no zod');
    `;
    const result = spawnSync(
      process.execPath,
      ['--conditions=@tracewarden/source', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('no zod');
  });
});
