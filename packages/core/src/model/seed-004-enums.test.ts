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
