import type { z } from 'zod';
import { lazyZodSchema } from '../errors/load-zod.js';

/**
 * A text chunk of multi-part content (seed 000).
 * @example `{ type: 'text', text: 'Hello' }`
 */
export const TextContentSchema = lazyZodSchema((z) =>
  z.looseObject({
    type: z.literal('text'),
    text: z.string(),
  }),
);
/** A text chunk of multi-part content. */
export type TextContent = z.infer<typeof TextContentSchema>;

/**
 * An image chunk of multi-part content, in the seed's normal form: `image_url` is a string
 * (a URL or a data URL). {@link parseTrace} also accepts OpenAI's `{ type: 'image_url',
 * image_url: { url } }` and normalises it to this form.
 */
export const ImageContentSchema = lazyZodSchema((z) =>
  z.looseObject({
    type: z.literal('image'),
    image_url: z.string(),
  }),
);
/** An image chunk of multi-part content (normal form: `image_url` is a string). */
export type ImageContent = z.infer<typeof ImageContentSchema>;

/** Any other chunk type (audio, files, provider specific): kept as given. */
export const OtherContentSchema = lazyZodSchema((z) => z.looseObject({ type: z.string() }));
/** Any content chunk; unknown chunk types are kept, not dropped. */
export type ContentPart = TextContent | ImageContent | z.infer<typeof OtherContentSchema>;

/** A content chunk: text, image, or any other typed chunk. */
export const ContentPartSchema = lazyZodSchema((z) =>
  z.union([TextContentSchema, ImageContentSchema, OtherContentSchema]),
);

/** Message content: a string, null, or a list of chunks (seed 000). */
export const ContentSchema = lazyZodSchema((z) =>
  z.union([z.string(), z.null(), z.array(ContentPartSchema)]),
);
/** Message content: a string, null, or a list of chunks. */
export type Content = string | null | ContentPart[];

/** A JSON object of tool-call arguments. */
export type ToolArguments = Record<string, unknown>;

/**
 * A tool call in the seed's (OpenAI chat) shape. After {@link parseTrace}, `arguments` is
 * always an object and `id` is always set.
 */
export const ToolCallSchema = lazyZodSchema((z) =>
  z.looseObject({
    id: z.string(),
    type: z.string(),
    function: z.looseObject({
      name: z.string(),
      arguments: z.record(z.string(), z.unknown()),
    }),
  }),
);
/** A tool call in normal form. */
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** A chat message of any role (user, assistant, system, developer, ...). Unknown fields are kept. */
export const MessageSchema = lazyZodSchema((z) =>
  z.looseObject({
    role: z.string(),
    content: ContentSchema.optional(),
    tool_calls: z.array(ToolCallSchema).optional(),
  }),
);
/** A chat message of any role. */
export type Message = z.infer<typeof MessageSchema>;

/** A tool's output, answering a previous tool call (seed 000). */
export const ToolOutputSchema = lazyZodSchema((z) =>
  z.looseObject({
    role: z.literal('tool'),
    content: ContentSchema,
    tool_call_id: z.string().optional(),
  }),
);
/** A tool's output. After {@link parseTrace}, `tool_call_id` is set whenever a call could be found. */
export type ToolOutput = z.infer<typeof ToolOutputSchema>;

/** One event of a trace: a message or a tool output. */
export const ChatEventSchema = lazyZodSchema((z) => z.union([ToolOutputSchema, MessageSchema]));
/** One event of a trace. */
export type ChatEvent = Message | ToolOutput;

/** A trace: the ordered list of events of one agent run (seeds 000, 001, 003). */
export const TraceSchema = lazyZodSchema((z) => z.array(ChatEventSchema));
/** A trace: the ordered list of events of one agent run. */
export type Trace = ChatEvent[];

/**
 * Whether an event is a tool output.
 * @param event - a trace event
 * @returns true for `role: 'tool'`
 */
export function isToolOutput(event: ChatEvent): event is ToolOutput {
  return event.role === 'tool';
}
