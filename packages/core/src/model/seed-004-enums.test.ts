import { describe, expect, it } from 'vitest';
import * as core from '../index.js';

// Seed 004's enums, value for value, from the package's public entry point.
describe("seed 004's enums", () => {
  it('are exported with exactly the seed values, as constants and as schemas', () => {
    const enums: [
      Record<string, string>,
      { options: readonly string[] },
      Record<string, string>,
    ][] = [
      [
        core.ToolCallStatus,
        core.ToolCallStatusSchema,
        {
          SUCCESS: 'success',
          FAILURE: 'failure',
          TIMEOUT: 'timeout',
          CIRCUIT_OPEN: 'circuit_open',
          BUDGET_EXCEEDED: 'budget_exceeded',
          RATE_LIMITED: 'rate_limited',
          VALIDATION_FAILED: 'validation_failed',
          HALLUCINATED: 'hallucinated',
          RETRIED: 'retried',
        },
      ],
      [core.GuardAction, core.GuardActionSchema, { BLOCK: 'block', WARN: 'warn', LOG: 'log' }],
      [
        core.CircuitState,
        core.CircuitStateSchema,
        { CLOSED: 'closed', OPEN: 'open', HALF_OPEN: 'half_open' },
      ],
      [
        core.ValidatorKind,
        core.ValidatorKindSchema,
        {
          SCHEMA: 'schema',
          HALLUCINATION: 'hallucination',
          SEMANTIC: 'semantic',
          CUSTOM: 'custom',
        },
      ],
      [
        core.UsageKind,
        core.UsageKindSchema,
        { TEXT: 'text', AUDIO: 'audio', IMAGE: 'image', MULTIMODAL: 'multimodal' },
      ],
    ];
    for (const [constants, schema, seed] of enums) {
      expect(constants).toEqual(seed);
      expect([...schema.options]).toEqual(Object.values(seed));
    }
  });
});

describe("seed 004's timestamps (a UTC datetime)", () => {
  const entry = (timestamp: string) => ({
    call: {
      call_id: 'c1',
      tool_name: 'search',
      args: [],
      kwargs: {},
      timestamp,
      session_id: null,
      metadata: {},
    },
    result: {
      call_id: 'c1',
      tool_name: 'search',
      status: 'success',
      return_value: 1,
      exception: null,
      exception_type: null,
      execution_time_ms: 1,
      retry_count: 0,
      validations: [],
      hallucination: null,
      cost: null,
      timestamp,
    },
  });

  it('accept ISO 8601 date-times as Python writes them, zone or not', () => {
    for (const timestamp of [
      '2024-05-15T10:00:00Z',
      '2024-05-15T10:00:00.123456',
      '2024-05-15 10:00:00+00:00',
      '2024-05-15T12:00:00.5+0200',
    ])
      expect(core.TraceEntrySchema.safeParse(entry(timestamp)).success).toBe(true);
  });

  it('reject what is not a date-time, naming the field and the form expected', () => {
    for (const timestamp of [
      'yesterday',
      '',
      '15/05/2024 10:00',
      '2024-05-15',
      'May 15 2024 10:00',
    ])
      expect(core.TraceEntrySchema.safeParse(entry(timestamp)).success).toBe(false);
    const parsed = core.TraceEntrySchema.safeParse(entry('yesterday'));
    expect(parsed.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['call.timestamp', expect.stringContaining('ISO 8601 date-time')],
      ['result.timestamp', expect.stringContaining('ISO 8601 date-time')],
    ]);
  });
});
