import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startScriptedServer } from '../server/index.js';
import { runScriptedServerCommand } from './scripted-server-command.js';

/** Runs the command in process until `stop` aborts; its output so far, and its exit code. */
function run(argv: string[]) {
  const stop = new AbortController();
  let out = '';
  let err = '';
  const done = runScriptedServerCommand(argv, {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    signal: stop.signal,
  });
  const url = async () => {
    for (let i = 0; i < 200 && !out.includes('/v1'); i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    return /on (http:\/\/\S+\/v1)/.exec(out)?.[1] as string;
  };
  return { stop, done, url, output: () => ({ out, err }) };
}

describe('tracewarden-scripted-server', () => {
  it('answers any OpenAI client from a script file, then echoes, until stopped', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'scripted-'));
    const script = join(folder, 'turns.json');
    await writeFile(
      script,
      JSON.stringify({
        turns: [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }],
      }),
    );
    const command = run(['--port', '0', '--script', script]);
    const client = new OpenAI({ baseURL: await command.url(), apiKey: 'any' });
    const first = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    expect(first.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    });
    const second = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Say hi' }],
    });
    expect(second.choices[0]?.message.content).toContain('Say hi');
    command.stop.abort();
    expect(await command.done).toBe(0);
    expect(command.output().out).toMatch(/1 scripted turn from .*turns\.json, then echo/);
    expect(command.output().out).toContain('stopped after 2 requests');
  });

  it('refuses bad options, an unreadable or malformed script and a taken port with exit 2 and what to fix', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'scripted-'));
    const notJson = join(folder, 'bad.json');
    await writeFile(notJson, '{ turns: ');
    const notTurns = join(folder, 'not-turns.json');
    await writeFile(notTurns, '[1]');
    await using taken = await startScriptedServer();
    for (const [argv, message] of [
      [['--port', 'http'], /--port must be a whole number from 0 to 65535, got "http"/],
      [['--fallback', 'loop'], /--fallback must be echo or error/],
      [['--prot', '1'], /Unknown option '--prot'/],
      [
        ['--script', join(folder, 'missing.json')],
        /cannot read the script .*missing\.json: ENOENT/,
      ],
      [['--script', notJson], /bad\.json is not JSON/],
      [['--script', notTurns], /turn 0 of the script .* must be an object/],
      [['--port', String(taken.port)], new RegExp(`port ${taken.port} is taken`)],
    ] as const) {
      const command = run([...argv]);
      expect(await command.done).toBe(2);
      expect(command.output().err).toMatch(message);
      expect(command.output().err).toContain('--help');
    }
  });

  it('the bin starts, serves and stops on SIGINT with exit code 0', async () => {
    const bin = fileURLToPath(new URL('../bin.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--conditions=@tracewarden/source', '--import', 'tsx', bin, '--port', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    for (let i = 0; i < 400 && !out.includes('Ctrl-C'); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    const url = /on (http:\/\/\S+\/v1)/.exec(out)?.[1];
    expect(url).toBeDefined();
    const reply = await new OpenAI({ baseURL: url, apiKey: 'any' }).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'ping' }],
    });
    expect(reply.choices[0]?.message.content).toContain('ping');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 20_000);
});
