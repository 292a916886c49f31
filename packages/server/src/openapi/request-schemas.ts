/**
 * A JSON Schema (the subset the collector's request bodies use: `type`, `required`,
 * `properties`, `items`, `$ref`, `description`).
 */
export interface JsonSchema {
  type?: string | string[];
  required?: string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  $ref?: string;
  description?: string;
  additionalProperties?: boolean | JsonSchema;
}

/**
 * The request bodies, as JSON Schemas. The routes check bodies against these (see
 * {@link checkBody}) and the OpenAPI document publishes them, so the two cannot drift. Blocks
 * and chat events are `$ref`s to core's schemas: core's validator checks those.
 *
 * @example
 * ```ts
 * requestSchemas.PostBlocks.required; // ['blocks']
 * ```
 */
export const requestSchemas = {
  PostBlocks: {
    type: 'object',
    required: ['blocks'],
    properties: {
      blocks: {
        type: 'array',
        items: { $ref: '#/components/schemas/BlockInput' },
        description:
          'Blocks of the trace; `id`, `trace_id`, `block_type` and timestamps may be left out. A body that is a bare array of blocks (as in seed 002) is taken as this list, and a body that is one block (an object with a `sub_type` and no `blocks`) as a list of one.',
      },
    },
  },
  CreateDataset: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', description: "The dataset's name (letters, digits, '_', '.', '-')." },
      metadata: { type: 'object', description: 'Metadata of the whole dataset (seed 001).' },
    },
  },
  AddDatasetTraces: {
    type: 'object',
    required: ['traces'],
    properties: {
      traces: {
        type: 'array',
        items: {
          type: 'object',
          required: ['trace_id'],
          properties: {
            trace_id: { type: 'string' },
            metadata: { type: 'object', description: "The trace's metadata in this dataset." },
          },
        },
      },
    },
  },
  PushTrace: {
    type: 'object',
    required: ['messages'],
    properties: {
      messages: {
        type: 'array',
        items: { type: 'array', items: { $ref: '#/components/schemas/ChatEvent' } },
        description: 'The traces, each a list of chat events (Invariant Explorer).',
      },
      annotations: { type: ['array', 'null'], description: 'One list of annotations per trace.' },
      metadata: {
        type: ['array', 'object', 'null'],
        description: 'One object per trace, or one for all.',
      },
      dataset: {
        type: ['string', 'null'],
        description: 'Add the traces to this dataset (created when missing).',
      },
    },
  },
} as const satisfies Record<string, JsonSchema>;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

/**
 * Checks a value against a {@link JsonSchema} of the subset above.
 * @param schema - the schema
 * @param value - the parsed body
 * @param path - the path of `value` (for messages)
 * @returns the first problem as `{ path, message }`, or undefined when the value fits
 * @example
 * ```ts
 * checkBody(requestSchemas.PostBlocks, { blocks: 'x' });
 * // { path: 'blocks', message: 'blocks must be array, got string' }
 * ```
 */
export function checkBody(
  schema: JsonSchema,
  value: unknown,
  path = '',
): { path: string; message: string } | undefined {
  if (schema.$ref !== undefined) return undefined;
  const types = schema.type === undefined ? [] : [schema.type].flat();
  if (types.length > 0 && !types.some((type) => matchesType(value, type))) {
    return {
      path,
      message: `${path === '' ? 'the body' : path} must be ${types.join(' or ')}, got ${typeOf(value)}`,
    };
  }
  if (typeOf(value) === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (record[key] === undefined) {
        const at = path === '' ? key : `${path}.${key}`;
        return { path: at, message: `${at} is required` };
      }
    }
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      if (record[key] === undefined) continue;
      const problem = checkBody(property, record[key], path === '' ? key : `${path}.${key}`);
      if (problem !== undefined) return problem;
    }
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    for (let i = 0; i < value.length; i++) {
      const problem = checkBody(schema.items, value[i], `${path}.${i}`);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}
