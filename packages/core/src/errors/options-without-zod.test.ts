import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('options are checked without zod', () => {
  it('a process that gives a tracer, guards, a budget, a sink and adapter options never loads zod', () => {
    const core = fileURLToPath(new URL('../index.ts', import.meta.url));
    // a cold start as users write it: options given everywhere, and one typo still caught
    const script = `
      import { createRequire } from 'node:module';
      const core = await import(${JSON.stringify(core)});
      const tracer = core.createTracer({ sinks: [core.createMemorySink()], limits: { messageBytes: 1000 } });
      core.guard(async () => 1, {
        retry: { maxRetries: 2, initialDelay: 0.1, retryOn: [TypeError] },
        timeout: { timeoutSeconds: 5 },
        budget: { maxCostPerSession: 1, modelPricingOverrides: { m: [1, 2] } },
        rateLimit: { callsPerSecond: 5 },
        tracer,
      });
      core.guardTools({ search: async () => 1 }, { tools: { search: { sideEffect: 'read' } } });
      core.createBudget({ maxCostPerCall: 0.5, onExceed: 'warn' });
      core.createConsoleSink({ color: false, maxWidth: 80 });
      core.checkAdapterOptions(
        { tracer, guards: { rateLimit: { callsPerSecond: 5 } }, timeoutSeconds: 30 },
        'wrapOpenAI',
      );
      let typo = 'accepted';
      try {
        core.guard(async () => 1, { budgets: { maxCostPerSession: 1 } });
      } catch (error) {
        typo = core.ConfigurationError.isInstance(error) ? error.path : String(error);
      }
      const cache = createRequire(import.meta.url).cache;
      const zod = Object.keys(cache).some((path) => /[\\\\/]zod[\\\\/]/.test(path));
      console.log(typo, zod ? 'zod loaded' : 'no zod');
    `;
    const result = spawnSync(
      process.execPath,
      ['--conditions=@tracewarden/source', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('budgets no zod');
  });
});
