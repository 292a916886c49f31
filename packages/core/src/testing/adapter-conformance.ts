import assert from 'node:assert/strict';
import { ConfigurationError } from '../errors/configuration-error.js';
import { TracewardenError } from '../errors/tracewarden-error.js';
import type { Block } from '../model/index.js';
import { parsePolicy } from '../policy/parse-policy.js';
import type { AdapterOptions } from '../recording/create-adapter-runtime.js';
import { createTracer } from '../tracing/create-tracer.js';
import type { Tracer } from '../tracing/types.js';
import { validateBlocks } from '../validation/validate-blocks.js';
import { comparableTrace } from './comparable-trace.js';

/** A tool the conformance cases give the adapter's agent loop. */
export interface ConformanceTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  execute(args: Record<string, unknown>): unknown;
}

/** One agent run the harness performs through its framework. */
export interface ConformanceRun {
  /** An OpenAI-compatible base URL (ends in `/v1`) answering from the case's script. */
  baseURL: string;
  model: string;
  system: string;
  prompt: string;
  tools: ConformanceTool[];
  /** The adapter's options; `tracer` is always set. */
  options: AdapterOptions & { tracer: Tracer };
  /** Most model calls of the run. */
  maxSteps: number;
}

/**
 * How an adapter's tests let the conformance cases drive it: an agent loop in the framework's
 * own way (the framework runs the tools), through the adapter configured with the given options.
 */
export interface AdapterConformanceHarness {
  /** Runs the agent until the model answers without tool calls (or `maxSteps`); errors reject. */
  run(run: ConformanceRun): Promise<void>;
  /** Builds the adapter from options as a user would (to check that options are validated). */
  create(options: unknown): unknown;
}

/** A scripted model turn (the shape `@tracewarden/testing`'s `startScriptedServer` takes). */
export interface ConformanceTurn {
  text?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown>; id?: string }[];
  fault?: { type: 'status'; status: number };
}

/** Starts an OpenAI-compatible server answering `turns` in order (`startScriptedServer`). */
export type ConformanceServe = (
  turns: ConformanceTurn[],
) => Promise<{ url: string; close(): Promise<void> }>;

/** One conformance case: run it as a test. */
export interface ConformanceCase {
  name: string;
  run(): Promise<void>;
}

const dangerPolicy = `
raise "danger is never allowed" if:
    (call: ToolCall)
    call is tool:danger
`;

function tools(ran: string[]): ConformanceTool[] {
  return [
    {
      name: 'lookup',
      description: 'Looks a question up.',
      parameters: {
        type: 'object',
        properties: { q: { type: 'string' } },
        required: ['q'],
        additionalProperties: false,
      },
      execute: (args) => {
        ran.push('lookup');
        return { answer: 42, q: args.q };
      },
    },
    {
      name: 'danger',
      description: 'Does something the policy forbids.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      execute: () => {
        ran.push('danger');
        return 'done';
      },
    },
  ];
}

function assertSound(tracer: Tracer): void {
  const report = validateBlocks(tracer.blocks());
  assert.equal(report.ok, true, report.errors.map((error) => error.message).join('; '));
  assert.equal(comparableTrace(tracer.stitched()).orphans, 0, 'the trace has orphans');
}

function messages(tracer: Tracer, role: string): Block[] {
  return tracer
    .blocks()
    .filter(
      (block) =>
        block.sub_type === 'MESSAGE' && (block.payload as { role?: unknown }).role === role,
    );
}

function statusOf(block: Block | undefined): unknown {
  return (block?.metadata as { status?: unknown } | undefined)?.status;
}

/**
 * The tracewarden error a run rejected with: the error itself, or the first in its `cause` chain
 * (a framework may wrap errors it did not make, keeping them as `cause`, as the OpenAI SDK's
 * stream helpers do).
 */
function typedError(error: unknown): TracewardenError | undefined {
  let current = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    if (TracewardenError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('the run was expected to reject');
}

/**
 * The adapter conformance suite: what every tracewarden adapter must do the same way, run
 * against an OpenAI-compatible scripted model through the adapter's own framework. Each adapter's
 * tests run every case (`for (const c of adapterConformanceCases(h, serve)) it(c.name, c.run)`).
 * Every case also checks that the trace passes `validateBlocks` and stitches with no orphans.
 * @param harness - drives the adapter's framework
 * @param serve - starts the scripted model server (`startScriptedServer` from `@tracewarden/testing`)
 * @returns the cases, each throwing an assertion error on failure
 * @example
 * ```ts
 * for (const c of adapterConformanceCases(harness, (turns) => startScriptedServer({ turns })))
 *   it(c.name, c.run);
 * ```
 */
export function adapterConformanceCases(
  harness: AdapterConformanceHarness,
  serve: ConformanceServe,
): ConformanceCase[] {
  async function withServer(
    turns: ConformanceTurn[],
    body: (baseURL: string) => Promise<void>,
  ): Promise<void> {
    const server = await serve(turns);
    try {
      await body(server.url);
    } finally {
      await server.close();
    }
  }
  function run(
    baseURL: string,
    options: AdapterOptions & { tracer: Tracer },
    ran: string[],
  ): Promise<void> {
    return harness.run({
      baseURL,
      model: 'gpt-4o-mini',
      system: 'You answer questions with the tools.',
      prompt: 'What is the answer?',
      tools: tools(ran),
      options,
      maxSteps: 4,
    });
  }

  return [
    {
      name: 'records a plain reply: the prompt, then the assistant MESSAGE with its status',
      run: () =>
        withServer([{ text: 'Hello there.' }], async (baseURL) => {
          const tracer = createTracer();
          await run(baseURL, { tracer }, []);
          const trace = comparableTrace(tracer.stitched());
          assert.deepEqual(
            trace.messages.map((message) => [message.role, message.content]),
            [
              ['system', 'You answer questions with the tools.'],
              ['user', 'What is the answer?'],
              ['assistant', 'Hello there.'],
            ],
          );
          assert.equal(statusOf(messages(tracer, 'assistant')[0]), 'success');
          assertSound(tracer);
        }),
    },
    {
      name: 'records a tool loop: the TOOL_CALL with the model call id, its TOOL_RESULT, history once',
      run: () =>
        withServer(
          [
            { toolCalls: [{ id: 'call_lookup', name: 'lookup', arguments: { q: 'life' } }] },
            { text: 'It is 42.' },
          ],
          async (baseURL) => {
            const tracer = createTracer();
            const ran: string[] = [];
            await run(baseURL, { tracer }, ran);
            assert.deepEqual(ran, ['lookup']);
            const trace = comparableTrace(tracer.stitched());
            assert.deepEqual(
              trace.messages.map((message) => message.role),
              ['system', 'user', 'assistant', 'assistant'],
              'a re-sent history is recorded once',
            );
            const call = trace.messages[2]?.tool_calls[0];
            assert.equal(call?.call_id, 'call_lookup');
            assert.equal(call?.name, 'lookup');
            assert.deepEqual(call?.arguments, { q: 'life' });
            assert.equal(call?.results.length, 1);
            assert.deepEqual(call?.results[0]?.output, { answer: 42, q: 'life' });
            assert.equal(trace.messages[3]?.content, 'It is 42.');
            assertSound(tracer);
          },
        ),
    },
    {
      name: "onPolicyViolation 'throw': a blocked call rejects with POLICY_VIOLATION and never runs",
      run: () =>
        withServer(
          [{ toolCalls: [{ id: 'call_danger', name: 'danger', arguments: {} }] }, { text: 'x' }],
          async (baseURL) => {
            const tracer = createTracer();
            const ran: string[] = [];
            const rejected = await rejection(
              run(baseURL, { tracer, policy: parsePolicy(dangerPolicy) }, ran),
            );
            const error = typedError(rejected);
            assert.ok(error !== undefined, `not a tracewarden error: ${rejected}`);
            assert.equal(error.code, 'POLICY_VIOLATION');
            assert.deepEqual(ran, []);
            const call = tracer.findToolCall('call_danger');
            assert.equal((call?.metadata as { policy?: unknown } | undefined)?.policy, 'block');
            assertSound(tracer);
          },
        ),
    },
    {
      name: "onPolicyViolation 'refuse': a blocked call never runs and its refusal is recorded",
      run: () =>
        withServer(
          [
            { toolCalls: [{ id: 'call_danger', name: 'danger', arguments: {} }] },
            { text: 'I was not allowed to.' },
          ],
          async (baseURL) => {
            const tracer = createTracer();
            const ran: string[] = [];
            await run(
              baseURL,
              { tracer, policy: parsePolicy(dangerPolicy), onPolicyViolation: 'refuse' },
              ran,
            );
            assert.deepEqual(ran, []);
            const call = comparableTrace(tracer.stitched())
              .messages.flatMap((message) => message.tool_calls)
              .find((node) => node.call_id === 'call_danger');
            assert.equal(call?.blocked, true);
            assert.equal(call?.results[0]?.refused, true);
            assert.equal(call?.results[0]?.status, 'failure');
            assertSound(tracer);
          },
        ),
    },
    {
      name: 'a model-call guard refuses before the request, with a typed error, and is recorded',
      run: () =>
        withServer(
          [
            { toolCalls: [{ id: 'call_lookup', name: 'lookup', arguments: { q: 'x' } }] },
            { text: 'never sent' },
          ],
          async (baseURL) => {
            const tracer = createTracer();
            const sharedKey = `conformance-${Math.random()}`;
            const rejected = await rejection(
              run(
                baseURL,
                { tracer, guards: { rateLimit: { callsPerHour: 1, burst: 1, sharedKey } } },
                [],
              ),
            );
            const error = typedError(rejected);
            assert.ok(error !== undefined, `not a tracewarden error: ${rejected}`);
            assert.equal(error.code, 'RATE_LIMITED');
            const assistants = messages(tracer, 'assistant');
            assert.equal(statusOf(assistants.at(-1)), 'rate_limited');
            assertSound(tracer);
          },
        ),
    },
    {
      name: 'a provider error surfaces to the caller and the call is recorded as failed',
      run: () =>
        withServer([{ fault: { type: 'status', status: 400 } }], async (baseURL) => {
          const tracer = createTracer();
          await rejection(run(baseURL, { tracer }, []));
          assert.equal(statusOf(messages(tracer, 'assistant').at(-1)), 'failure');
          assertSound(tracer);
        }),
    },
    {
      name: 'options are validated where they are given (a typo never silently drops a guard)',
      run: async () => {
        for (const bad of [
          { guards: { budgets: { maxCostPerSession: 1 } } },
          { budget: { maxCostPerSession: 1 } },
          { timeoutSeconds: '5' },
          { onPolicyViolation: 'block' },
          { policy: dangerPolicy },
          { tracer: () => undefined },
        ]) {
          let thrown: unknown;
          try {
            harness.create(bad);
          } catch (error) {
            thrown = error;
          }
          assert.ok(
            ConfigurationError.isInstance(thrown),
            `options ${JSON.stringify(bad)} were accepted`,
          );
        }
      },
    },
  ];
}
