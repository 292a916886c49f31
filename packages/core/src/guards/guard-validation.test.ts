import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TraceEntry } from '../model/tool-records.js';
import { memoryLogger } from './__fixtures__/fake-time.js';
import { createHallucinationDetector } from './create-hallucination-detector.js';
import { guard } from './guard.js';
import { HallucinationError } from './hallucination-error.js';
import { runValidators, type ValidatorContext } from './run-validators.js';
import { ValidationFailedError } from './validation-failed-error.js';

const context: ValidatorContext = { phase: 'input', toolName: 't', args: [], kwargs: {} };

describe('validators', () => {
  it('accepts Standard Schemas, functions, specs and async semantic checks', async () => {
    const results = await runValidators(
      [
        z.object({ sql: z.string() }),
        function readOnly(value: unknown) {
          return !String((value as { sql: string }).sql).includes('DROP');
        },
        {
          name: 'semantic',
          kind: 'semantic',
          validate: async () => ({
            valid: false,
            message: 'looks destructive',
            details: { score: 0.9 },
          }),
        },
        () => undefined,
        () => {
          throw new Error('validator crashed');
        },
      ],
      { sql: 'DROP TABLE x' },
      context,
    );
    expect(results.map((r) => [r.valid, r.kind])).toEqual([
      [true, 'schema'],
      [false, 'custom'],
      [false, 'semantic'],
      [true, 'custom'],
      [false, 'custom'],
    ]);
    expect(results[1]!.message).toBe('readOnly rejected the input');
    expect(results[2]).toMatchObject({
      message: 'looks destructive',
      details: { validator: 'semantic', score: 0.9 },
    });
    expect(results[4]!.message).toContain('validator crashed');
  });

  it('reports schema issues with their path', async () => {
    const [result] = await runValidators(
      z.object({ user: z.object({ id: z.string() }) }),
      { user: { id: 1 } },
      context,
    );
    expect(result!.valid).toBe(false);
    expect(result!.message).toContain('user.id');
    expect(result!.details.vendor).toBe('zod');
  });

  it('output validation blocks the result with status validation_failed', async () => {
    const entries: TraceEntry[] = [];
    const fn = guard(async () => ({ rows: 'not an array' }), {
      validators: { output: z.object({ rows: z.array(z.unknown()) }) },
      onEntry: (e) => entries.push(e),
    });
    const error = await fn().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailedError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 'validation_failed' });
    expect(entries[0]!.result.status).toBe('validation_failed');
    expect(entries[0]!.result.validations[0]).toMatchObject({ valid: false, kind: 'schema' });
  });

  it('onInvalid warn and log return the result anyway, keeping the failed validations', async () => {
    for (const onInvalid of ['warn', 'log'] as const) {
      const logger = memoryLogger();
      const entries: TraceEntry[] = [];
      const fn = guard(async (input: { n: number }) => input.n, {
        logger,
        validators: {
          input: z.object({ n: z.number().positive() }),
          output: (v: number) => v < 10,
          onInvalid,
        },
        onEntry: (e) => entries.push(e),
      });
      await expect(fn({ n: -50 })).resolves.toBe(-50);
      await expect(fn({ n: 50 })).resolves.toBe(50);
      expect(logger.warnings).toHaveLength(onInvalid === 'warn' ? 2 : 0);
      expect(entries.map((e) => e.result.validations.map((v) => v.valid))).toEqual([
        [false, true],
        [true, false],
      ]);
      expect(entries.every((e) => e.result.status === 'success')).toBe(true);
    }
  });
});

describe('hallucination', () => {
  it('scores an unknown tool, invalid arguments and an unseen id', async () => {
    const detector = createHallucinationDetector({ knownTools: ['get_order'] });
    const unknown = await detector.check({
      toolName: 'get_ordr',
      args: [],
      kwargs: {},
      sessionId: 's',
    });
    expect(unknown).toMatchObject({ is_hallucinated: true, confidence: 0.9 });
    expect(unknown.signals.unknown_tool).toBe(true);

    detector.observe({ orders: [{ order_id: 'o_1' }] }, 's');
    const seen = await detector.check({
      toolName: 'get_order',
      args: [],
      kwargs: { order_id: 'o_1' },
      sessionId: 's',
    });
    expect(seen).toMatchObject({
      is_hallucinated: false,
      confidence: 0,
      reason: 'no hallucination signal',
    });

    const unseen = await detector.check(
      { toolName: 'get_order', args: [], kwargs: { order_id: 'o_999' }, sessionId: 's' },
      { argumentsSchema: z.object({ order_id: z.string().regex(/^o_\d$/) }) },
    );
    expect(unseen.signals.unseen_id).toEqual(['order_id']);
    expect(unseen.signals.invalid_arguments).toHaveLength(1);
    // 1 − (1 − 0.6)(1 − 0.5)
    expect(unseen.confidence).toBe(0.8);
    expect(unseen.is_hallucinated).toBe(true);

    const inTrace = await detector.check({
      toolName: 'get_order',
      args: [],
      kwargs: { order_id: 'o_7' },
      sessionId: 's',
      traceText: () => '{"content":"my order is o_7"}',
    });
    expect(inTrace.signals.unseen_id).toEqual([]);
  });

  it('checks result profiles: latency, required and forbidden fields, patterns', async () => {
    const detector = createHallucinationDetector();
    const result = await detector.check(
      {
        toolName: 'lookup',
        args: ['x'],
        kwargs: {},
        sessionId: 's',
        result: { name: 'A', debug: true, email: 'nope' },
        latencyMs: 0.1,
      },
      {
        threshold: 0.9,
        profile: {
          minLatencyMs: 5,
          requiredFields: ['name', 'id'],
          forbiddenFields: ['debug'],
          patterns: { email: /@/ },
        },
      },
    );
    expect(result.signals).toMatchObject({
      latency_out_of_range: true,
      missing_required_fields: ['id'],
      forbidden_fields: ['debug'],
      pattern_mismatches: ['email'],
    });
    expect(result.is_hallucinated).toBe(true);
    expect(result.confidence).toBeGreaterThan(0.9);
  });

  it('a guard blocks a hallucinated call with status hallucinated, and learns ids from results', async () => {
    const entries: TraceEntry[] = [];
    const detector = createHallucinationDetector({ knownTools: ['list_orders', 'get_order'] });
    const list = guard(async () => ({ orders: [{ id: 'o_1' }] }), {
      name: 'list_orders',
      hallucination: { detector },
    });
    const get = guard(async (input: { order_id: string }) => ({ id: input.order_id, total: 3 }), {
      name: 'get_order',
      hallucination: { detector, threshold: 0.5 },
      onEntry: (e) => entries.push(e),
    });
    const error = await get({ order_id: 'o_1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HallucinationError);
    expect(error).toMatchObject({ code: 'HALLUCINATED', status: 'hallucinated' });
    expect(entries[0]!.result.hallucination).toMatchObject({ is_hallucinated: true });
    await list();
    await expect(get({ order_id: 'o_1' })).resolves.toEqual({ id: 'o_1', total: 3 });
    expect(entries[1]!.result.hallucination).toMatchObject({ is_hallucinated: false });
  });

  it('onHallucination warn lets the result through', async () => {
    const logger = memoryLogger();
    const fn = guard(async (input: { user_id: string }) => input.user_id, {
      logger,
      hallucination: { threshold: 0.5, onHallucination: 'warn' },
    });
    await expect(fn({ user_id: 'u_404' })).resolves.toBe('u_404');
    expect(logger.warnings[0]?.message).toContain('hallucinated');
  });
});
