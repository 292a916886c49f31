import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

// The seam only splits in the build (the sources import the engine statically), so this builds
// core as `pnpm build` does, without declarations, into a cache folder inside the package (so
// that zod and secretlint resolve as for an installed package), and runs it in a plain Node
// process: Node's own `require()` of the chunk, not vitest's module runner.
const packageDirectory = fileURLToPath(new URL('../..', import.meta.url));
const outDirectory = join(packageDirectory, 'node_modules/.cache/tracewarden-policy-chunk-test');
const tsupBin = join(
  dirname(createRequire(join(packageDirectory, 'package.json')).resolve('tsup/package.json')),
  'dist/cli-default.js',
);

/** Runs an ES module script against the built package (`core`, `engineLoaded` and `report` in scope). */
function runOnBuild(script: string, directory = outDirectory): Record<string, unknown> {
  const prelude = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); seen.push(found.url); return found; } });
    const { readFileSync } = await import('node:fs');
    // whether a file loaded so far holds the policy engine (its compiler or its runtime), however
    // the bundler writes a class (no backslashes here: this is a template literal)
    const engineLoaded = () => seen.some((url) => url.startsWith('file:') &&
      /(class |var )(PolicyCompiler|PolicySession)[ ={]/.test(readFileSync(new URL(url), 'utf8')));
    const core = await import(${JSON.stringify(pathToFileURL(join(directory, 'index.js')).href)});
    const report = {};
  `;
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `${prelude}${script}\nconsole.log(JSON.stringify(report));`],
    { encoding: 'utf8', cwd: packageDirectory },
  );
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('the built package loads the policy engine on first use', () => {
  beforeAll(() => {
    rmSync(outDirectory, { recursive: true, force: true });
    const build = spawnSync(
      process.execPath,
      [tsupBin, '--out-dir', outDirectory, '--no-dts', '--no-sourcemap', '--silent'],
      { encoding: 'utf8', cwd: packageDirectory },
    );
    expect(build.status, build.stderr).toBe(0);
    // node_modules ends a package scope: say that these .js files are ES modules, as core's are
    writeFileSync(join(outDirectory, 'package.json'), '{ "type": "module" }\n');
  }, 120_000);

  it('importing core and making a tracer, a guard and a typed policy loads no policy code; the first check does, synchronously', () => {
    const report = runOnBuild(`
      core.createTracer({ sinks: [core.createMemorySink()] });
      core.guard(async () => 1, { retry: { maxRetries: 2 }, timeout: { timeoutSeconds: 5 } });
      const typed = core.definePolicy([
        core.rule({ message: 'loop', vars: { a: core.toolCall('search'), b: core.toolCall('search') }, when: [core.flow('a', 'b', { immediate: true })] }),
      ]);
      report.afterSetUp = engineLoaded();
      const call = (id) => ({ id, type: 'function', function: { name: 'search', arguments: '{}' } });
      report.loops = typed.check([{ role: 'assistant', content: null, tool_calls: [call('1'), call('2')] }]).errors.length;
      report.afterCheck = engineLoaded();
      report.pii = core.detectPii('mail bob@example.com');
    `);
    expect(report).toEqual({
      afterSetUp: false,
      loops: 1,
      afterCheck: true,
      pii: [{ type: 'EMAIL_ADDRESS', start: 5, end: 20 }],
    });
  });

  it('a bundle without the chunk beside it fails with a typed error that says to keep core external', () => {
    const bundled = `${outDirectory}-without-chunk`;
    rmSync(bundled, { recursive: true, force: true });
    cpSync(outDirectory, bundled, { recursive: true });
    rmSync(join(bundled, 'policy.js'));
    try {
      const report = runOnBuild(
        `
        core.createTracer();
        try { core.parsePolicy('raise "x" if:\\n  (call: ToolCall)\\n'); } catch (error) {
          report.error = [error.code, core.TracewardenError.isInstance(error), /keep @tracewarden\\/core external/.test(error.message)];
        }
      `,
        bundled,
      );
      expect(report).toEqual({ error: ['POLICY_ENGINE_MISSING', true, true] });
    } finally {
      rmSync(bundled, { recursive: true, force: true });
    }
  });

  it('errors thrown and policies made across the seam are the main bundle classes', () => {
    const report = runOnBuild(`
      const caught = (run) => { try { run(); } catch (error) { return error; } };
      const syntax = caught(() => core.parsePolicy('raise "x" if:\\n  (call: ToolCall\\n'));
      report.syntax = [syntax.code, syntax instanceof core.PolicyError, core.PolicyError.isInstance(syntax), syntax instanceof core.TracewardenError];
      const policy = core.parsePolicy('raise "no deletes" if:\\n  (call: ToolCall)\\n  call is tool:delete_file\\n');
      report.policy = [policy instanceof core.Policy, core.recommendedPolicy() instanceof core.Policy];
      const blocked = caught(() => policy.assertToolCall([], { name: 'delete_file', arguments: {} }));
      report.blocked = [blocked.code, blocked instanceof core.PolicyViolationError, core.PolicyViolationError.isInstance(blocked)];
      const input = caught(() => policy.checkToolCall([], 'not a call'));
      report.input = [input.code, input instanceof core.PolicyError];
      const regex = caught(() => core.parsePolicy('raise "x" if:\\n  (m: Message)\\n  match(r"(a)\\\\1", m.content)\\n'));
      report.regex = [regex.code, core.PolicyError.isInstance(regex)];
    `);
    expect(report).toEqual({
      syntax: ['POLICY_SYNTAX', true, true, true],
      policy: [true, true],
      blocked: ['POLICY_VIOLATION', true, true],
      input: ['POLICY_INPUT', true],
      regex: ['POLICY_TYPE', true],
    });
  });
});
