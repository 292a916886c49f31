import type { z } from 'zod';
import { lazyZodSchema } from '../errors/load-zod.js';
import { isIsoTimestamp } from '../text/is-iso-timestamp.js';
import { isWellFormed } from '../text/is-well-formed.js';
import { jsonByteBound } from '../text/json-byte-bound.js';
import { stringByteLength } from '../text/string-byte-length.js';
import { ContentSchema } from './chat-events.js';

/** Semantic meaning of a block (seed 002). */
export const SubTypeSchema = lazyZodSchema((z) =>
  z.enum(['MESSAGE', 'TOOL_CALL', 'TOOL_RESULT', 'THINK']),
);
/** Semantic meaning of a block. */
export type SubType = z.infer<typeof SubTypeSchema>;

/** Coarse UI bucket of a block (seed 002). */
export const BlockTypeSchema = lazyZodSchema((z) => z.enum(['MESSAGE', 'ACT', 'OBSERVE']));
/** Coarse UI bucket of a block. */
export type BlockType = z.infer<typeof BlockTypeSchema>;

/** The block type each sub type belongs to: MESSAGE→MESSAGE, TOOL_CALL→ACT, THINK→ACT, TOOL_RESULT→OBSERVE. */
export const blockTypeOf: Readonly<Record<SubType, BlockType>> = Object.freeze({
  MESSAGE: 'MESSAGE',
  TOOL_CALL: 'ACT',
  THINK: 'ACT',
  TOOL_RESULT: 'OBSERVE',
});

/**
 * The fields of a block: the columns of seed 002's `trace_blocks` table, in its order. A block
 * has no others: client data goes in `extra`, provider payloads in `raw`.
 * @example
 * ```ts
 * const unknown = Object.keys(input).filter((key) => !blockFieldNames.includes(key as never));
 * ```
 */
export const blockFieldNames = Object.freeze([
  'id',
  'trace_id',
  'block_type',
  'sub_type',
  'payload',
  'parent_block_id',
  'metadata',
  'raw',
  'extra',
  'created_at',
  'updated_at',
] as const);

/** The roles a MESSAGE block may carry (seed 002). */
export const messageRoles = ['system', 'user', 'assistant'] as const;
/** A MESSAGE block's role. */
export type MessageRole = (typeof messageRoles)[number];

/** Payload of a MESSAGE block. */
export const MessagePayloadSchema = lazyZodSchema((z) =>
  z.looseObject({
    role: z.enum(messageRoles),
    content: ContentSchema.optional(),
  }),
);
/** Payload of a MESSAGE block. */
export type MessagePayload = z.infer<typeof MessagePayloadSchema>;

/** Payload of a TOOL_CALL block: `arguments` may be an object or a JSON string of one. */
export const ToolCallPayloadSchema = lazyZodSchema((z) =>
  z.looseObject({
    call_id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.unknown(),
  }),
);
/** Payload of a TOOL_CALL block. */
export type ToolCallPayload = z.infer<typeof ToolCallPayloadSchema>;

/** Payload of a TOOL_RESULT block: exactly one of `output` and `delta`; optional `seq` (null: none). */
export const ToolResultPayloadSchema = lazyZodSchema((z) =>
  z.looseObject({
    call_id: z.string().min(1),
    output: z.unknown().optional(),
    delta: z.unknown().optional(),
    seq: z.number().int().nonnegative().nullable().optional(),
  }),
);
/** Payload of a TOOL_RESULT block. */
export type ToolResultPayload = z.infer<typeof ToolResultPayloadSchema>;

/** Payload of a THINK block. */
export const ThinkPayloadSchema = lazyZodSchema((z) =>
  z.looseObject({
    text: z.string().min(1),
  }),
);
/** Payload of a THINK block. */
export type ThinkPayload = z.infer<typeof ThinkPayloadSchema>;

/** The payload type of each sub type. */
export interface PayloadBySubType {
  MESSAGE: MessagePayload;
  TOOL_CALL: ToolCallPayload;
  TOOL_RESULT: ToolResultPayload;
  THINK: ThinkPayload;
}

// built on first use, with zod loaded then (see lazyZodSchema)
const blockShapes = lazyZodSchema((z) => {
  const JsonObjectSchema = z.record(z.string(), z.unknown());
  const blockFields = {
    id: z.string().min(1),
    trace_id: z.string().min(1),
    parent_block_id: z.string().nullable().optional(),
    metadata: JsonObjectSchema.optional(),
    raw: z.unknown().optional(),
    extra: JsonObjectSchema.optional(),
    /** Insertion time; absent on a block a client submits (the validator then sets it). */
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
  };
  return z.discriminatedUnion('sub_type', [
    z.object({
      ...blockFields,
      block_type: z.literal('MESSAGE'),
      sub_type: z.literal('MESSAGE'),
      payload: MessagePayloadSchema,
    }),
    z.object({
      ...blockFields,
      block_type: z.literal('ACT'),
      sub_type: z.literal('TOOL_CALL'),
      payload: ToolCallPayloadSchema,
    }),
    z.object({
      ...blockFields,
      block_type: z.literal('OBSERVE'),
      sub_type: z.literal('TOOL_RESULT'),
      payload: ToolResultPayloadSchema,
    }),
    z.object({
      ...blockFields,
      block_type: z.literal('ACT'),
      sub_type: z.literal('THINK'),
      payload: ThinkPayloadSchema,
    }),
  ]);
});

/** Byte limits a {@link createBlockSchema} schema enforces (the seed's defaults unless given). */
export interface BlockSchemaLimits {
  messageBytes: number;
  thinkBytes: number;
  toolArgumentsBytes: number;
  toolResultBytes: number;
}

const seedLimits: BlockSchemaLimits = {
  messageBytes: 65_536,
  thinkBytes: 32_768,
  toolArgumentsBytes: 262_144,
  toolResultBytes: 2_097_152,
};

// in a `u` regex a surrogate range only matches unpaired surrogates
const loneSurrogate = /[\ud800-\udfff]/u;

function hasLoneSurrogate(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return loneSurrogate.test(value);
  if (typeof value !== 'object' || value === null || depth > 10_000) return false;
  if (Array.isArray(value)) return value.some((item) => hasLoneSurrogate(item, depth + 1));
  for (const [key, item] of Object.entries(value)) {
    if (loneSurrogate.test(key) || hasLoneSurrogate(item, depth + 1)) return true;
  }
  return false;
}

/** UTF-8 bytes of any non-string value's JSON; undefined when it has no JSON form. */
function jsonBytesOf(value: unknown): number | undefined {
  try {
    const text = JSON.stringify(value);
    // JSON.stringify escapes lone surrogates, so its text is well-formed
    return text === undefined ? undefined : stringByteLength(text);
  } catch {
    return undefined;
  }
}

type RefinementContext = z.core.$RefinementCtx<unknown>;

function issue(context: RefinementContext, message: string, path: (string | number)[]): void {
  context.addIssue({ code: 'custom', message, path });
}

/**
 * The lone-surrogate and byte-limit rules of one limited field. Cheap bounds first: a string of
 * length L encodes to at most 3L bytes, and {@link jsonByteBound} bounds a plain JSON value (and
 * proves it free of lone surrogates) in one walk; only values whose bound exceeds the limit are
 * serialised and counted.
 */
function checkLimited(
  context: RefinementContext,
  value: unknown,
  limit: number,
  field: string,
): void {
  let bytes: number | undefined;
  if (typeof value === 'string') {
    if (!isWellFormed(value)) {
      issue(context, `${field} contains a lone surrogate, which UTF-8 cannot encode`, [
        'payload',
        field,
      ]);
      return;
    }
    if (value.length * 3 <= limit) return;
    bytes = stringByteLength(value);
  } else {
    const bound = jsonByteBound(value, 0);
    if (bound >= 0 && bound <= limit) return;
    if (bound < 0 && hasLoneSurrogate(value)) {
      issue(context, `${field} contains a lone surrogate, which UTF-8 cannot encode`, [
        'payload',
        field,
      ]);
      return;
    }
    bytes = jsonBytesOf(value);
  }
  if (bytes === undefined) issue(context, `${field} must be JSON`, ['payload', field]);
  else if (bytes > limit) issue(context, `${field} exceeds ${limit} bytes`, ['payload', field]);
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether message content says nothing: absent, `null`, `''`, `[]`, or a list of only text parts
 * without text (absent, `null` or `''`), as the hand-written validator reads it (seed 002's
 * "non-empty content").
 */
function isEmptyContent(content: unknown): boolean {
  if (content === undefined || content === null || content === '') return true;
  if (!Array.isArray(content)) return false;
  return content.every(
    (part) => isJsonObject(part) && part.type === 'text' && (part.text == null || part.text === ''),
  );
}

/** Reports a text part whose `text` is neither a string nor absent/`null`. */
function checkTextParts(context: RefinementContext, content: unknown): void {
  if (!Array.isArray(content)) return;
  content.forEach((part, index) => {
    if (
      isJsonObject(part) &&
      part.type === 'text' &&
      part.text != null &&
      typeof part.text !== 'string'
    )
      issue(context, `content[${index}].text must be a string`, [
        'payload',
        'content',
        index,
        'text',
      ]);
  });
}

/**
 * Creates the zod schema of one block with every rule seed 002's server checks on a block by
 * itself: wire fields and `block_type` ↔ `sub_type`, ISO timestamps, parent presence (MESSAGE has
 * none; TOOL_CALL, THINK and TOOL_RESULT have one), MESSAGE roles and non-empty content (an
 * assistant message may be empty: decision 001), TOOL_CALL `arguments` an object or a JSON string
 * of one, THINK non-empty text, TOOL_RESULT exactly one of `output` | `delta` with an optional
 * non-negative integer `seq`, no lone surrogates in size-limited fields, and the byte limits.
 * Rules that need other blocks (parent sub types, duplicates) are `createBlockValidator`'s.
 *
 * @param limits - byte limits to enforce
 * @default limits the seed's defaults: 64 KB message, 32 KB think, 256 KB arguments, 2 MB result
 * @returns a zod schema of one block
 * @example
 * ```ts
 * const schema = createBlockSchema({ messageBytes: 1024 });
 * schema.safeParse(block).success;
 * ```
 */
export function createBlockSchema(limits: Partial<BlockSchemaLimits> = {}) {
  const max = { ...seedLimits, ...limits };
  return blockShapes.superRefine((block, context) => {
    if (block.created_at !== undefined && !isIsoTimestamp(block.created_at)) {
      issue(context, 'created_at must be an ISO 8601 timestamp', ['created_at']);
    }
    if (block.updated_at !== undefined && !isIsoTimestamp(block.updated_at)) {
      issue(context, 'updated_at must be an ISO 8601 timestamp', ['updated_at']);
    }
    const parent = block.parent_block_id;
    const payload = block.payload as Record<string, unknown>;
    switch (block.sub_type) {
      case 'MESSAGE': {
        if (parent !== undefined && parent !== null) {
          issue(context, 'a MESSAGE block has no parent', ['parent_block_id']);
        }
        checkTextParts(context, payload.content);
        if (isEmptyContent(payload.content)) {
          if (payload.role !== 'assistant')
            issue(context, 'content must not be empty', ['payload', 'content']);
        }
        if (typeof payload.content === 'string' || Array.isArray(payload.content))
          checkLimited(context, payload.content, max.messageBytes, 'content');
        break;
      }
      case 'TOOL_CALL': {
        if (typeof parent !== 'string' || parent === block.id) {
          issue(context, 'a TOOL_CALL block needs a MESSAGE parent', ['parent_block_id']);
        }
        const args = payload.arguments;
        if (typeof args === 'string') {
          let parsed: unknown;
          try {
            parsed = JSON.parse(args);
          } catch {
            parsed = undefined;
          }
          if (!isJsonObject(parsed))
            issue(context, 'arguments must be a JSON object', ['payload', 'arguments']);
          else checkLimited(context, args, max.toolArgumentsBytes, 'arguments');
        } else if (!isJsonObject(args)) {
          issue(context, 'arguments must be a JSON object', ['payload', 'arguments']);
        } else checkLimited(context, args, max.toolArgumentsBytes, 'arguments');
        break;
      }
      case 'THINK': {
        if (typeof parent !== 'string' || parent === block.id) {
          issue(context, 'a THINK block needs a MESSAGE parent', ['parent_block_id']);
        }
        checkLimited(context, payload.text, max.thinkBytes, 'text');
        break;
      }
      case 'TOOL_RESULT': {
        if (typeof parent !== 'string' || parent === block.id) {
          issue(context, 'a TOOL_RESULT block needs a TOOL_CALL parent', ['parent_block_id']);
        }
        const hasOutput = payload.output !== undefined;
        if (hasOutput === (payload.delta !== undefined)) {
          issue(context, 'a TOOL_RESULT has exactly one of output and delta', ['payload']);
        } else if (hasOutput) checkLimited(context, payload.output, max.toolResultBytes, 'output');
        else checkLimited(context, payload.delta, max.toolResultBytes, 'delta');
        break;
      }
    }
  });
}

/**
 * A trace block with the seed's wire fields, exactly: `id` (`tb_...`), `trace_id` (`tr_...`),
 * `block_type`, `sub_type`, `payload`, `parent_block_id`, `metadata`, `raw`, `extra`,
 * `created_at`, `updated_at` (ISO 8601 timestamps), with every single-block rule of seed 002 at
 * the default byte limits (see {@link createBlockSchema}). The fast validator
 * (`createBlockValidator`) agrees with it on every input.
 */
export const BlockSchema = lazyZodSchema(() => createBlockSchema());

/** A block of sub type `S`, as accepted and stored (every field present). */
export interface BlockOf<S extends SubType = SubType> {
  readonly id: string;
  readonly trace_id: string;
  readonly block_type: (typeof blockTypeOf)[S];
  readonly sub_type: S;
  readonly payload: PayloadBySubType[S];
  readonly parent_block_id: string | null;
  readonly metadata: Record<string, unknown>;
  readonly raw: unknown;
  readonly extra: Record<string, unknown>;
  readonly created_at: string;
  readonly updated_at: string;
}

/** Any block, as accepted and stored. */
export type Block =
  | BlockOf<'MESSAGE'>
  | BlockOf<'TOOL_CALL'>
  | BlockOf<'TOOL_RESULT'>
  | BlockOf<'THINK'>;
/** A MESSAGE block. */
export type MessageBlock = BlockOf<'MESSAGE'>;
/** A TOOL_CALL block. */
export type ToolCallBlock = BlockOf<'TOOL_CALL'>;
/** A TOOL_RESULT block. */
export type ToolResultBlock = BlockOf<'TOOL_RESULT'>;
/** A THINK block. */
export type ThinkBlock = BlockOf<'THINK'>;
