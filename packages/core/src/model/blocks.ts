import { z } from 'zod';
import { ContentSchema } from './chat-events.js';

/** Semantic meaning of a block (seed 002). */
export const SubTypeSchema = z.enum(['MESSAGE', 'TOOL_CALL', 'TOOL_RESULT', 'THINK']);
/** Semantic meaning of a block. */
export type SubType = z.infer<typeof SubTypeSchema>;

/** Coarse UI bucket of a block (seed 002). */
export const BlockTypeSchema = z.enum(['MESSAGE', 'ACT', 'OBSERVE']);
/** Coarse UI bucket of a block. */
export type BlockType = z.infer<typeof BlockTypeSchema>;

/** The block type each sub type belongs to: MESSAGE→MESSAGE, TOOL_CALL→ACT, THINK→ACT, TOOL_RESULT→OBSERVE. */
export const blockTypeOf: Readonly<Record<SubType, BlockType>> = Object.freeze({
  MESSAGE: 'MESSAGE',
  TOOL_CALL: 'ACT',
  THINK: 'ACT',
  TOOL_RESULT: 'OBSERVE',
});

/** The roles a MESSAGE block may carry (seed 002). */
export const messageRoles = ['system', 'user', 'assistant'] as const;
/** A MESSAGE block's role. */
export type MessageRole = (typeof messageRoles)[number];

/** Payload of a MESSAGE block. */
export const MessagePayloadSchema = z.looseObject({
  role: z.enum(messageRoles),
  content: ContentSchema.optional(),
});
/** Payload of a MESSAGE block. */
export type MessagePayload = z.infer<typeof MessagePayloadSchema>;

/** Payload of a TOOL_CALL block: `arguments` may be an object or a JSON string of one. */
export const ToolCallPayloadSchema = z.looseObject({
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.unknown(),
});
/** Payload of a TOOL_CALL block. */
export type ToolCallPayload = z.infer<typeof ToolCallPayloadSchema>;

/** Payload of a TOOL_RESULT block: exactly one of `output` and `delta`; optional `seq`. */
export const ToolResultPayloadSchema = z.looseObject({
  call_id: z.string().min(1),
  output: z.unknown().optional(),
  delta: z.unknown().optional(),
  seq: z.number().int().nonnegative().optional(),
});
/** Payload of a TOOL_RESULT block. */
export type ToolResultPayload = z.infer<typeof ToolResultPayloadSchema>;

/** Payload of a THINK block. */
export const ThinkPayloadSchema = z.looseObject({
  text: z.string().min(1),
});
/** Payload of a THINK block. */
export type ThinkPayload = z.infer<typeof ThinkPayloadSchema>;

/** The payload type of each sub type. */
export interface PayloadBySubType {
  MESSAGE: MessagePayload;
  TOOL_CALL: ToolCallPayload;
  TOOL_RESULT: ToolResultPayload;
  THINK: ThinkPayload;
}

const JsonObjectSchema = z.record(z.string(), z.unknown());

const blockFields = {
  id: z.string().min(1),
  trace_id: z.string().min(1),
  parent_block_id: z.string().nullable().optional(),
  metadata: JsonObjectSchema.optional(),
  raw: z.unknown().optional(),
  extra: JsonObjectSchema.optional(),
  created_at: z.string(),
  updated_at: z.string().optional(),
};

/**
 * A trace block with the seed's wire fields, exactly: `id` (`tb_...`), `trace_id` (`tr_...`),
 * `block_type`, `sub_type`, `payload`, `parent_block_id`, `metadata`, `raw`, `extra`,
 * `created_at`, `updated_at` (ISO 8601 timestamps).
 */
export const BlockSchema = z.discriminatedUnion('sub_type', [
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
