import type { Block, MessageRole } from '../model/index.js';

/** Options of {@link createBlockBuilder}. */
export interface BlockBuilderOptions {
  /** Trace id of every block. @default 'tr_test' */
  traceId?: string;
  /** Epoch ms of the first block; each next block is 1 ms later. @default 1_700_000_000_000 */
  start?: number;
}

/** Builds valid, linked blocks with sequential ids (`tb_000001`, ...) and increasing `created_at`. */
export interface BlockBuilder {
  message(role: MessageRole, content: string | null): Block;
  toolCall(parent: Block, name: string, args: Record<string, unknown>, callId?: string): Block;
  toolResult(parent: Block, output: unknown, extra?: { seq?: number; delta?: unknown }): Block;
  think(parent: Block, text: string): Block;
}

/**
 * Creates a builder of valid blocks for tests and examples.
 * @param options - trace id and start time
 * @returns a {@link BlockBuilder}
 * @example
 * ```ts
 * const b = createBlockBuilder();
 * const msg = b.message('assistant', null);
 * const call = b.toolCall(msg, 'get_weather', { city: 'Paris' });
 * const result = b.toolResult(call, { forecast: 'sunny' });
 * ```
 */
export function createBlockBuilder(options: BlockBuilderOptions = {}): BlockBuilder {
  const traceId = options.traceId ?? 'tr_test';
  let time = options.start ?? 1_700_000_000_000;
  let count = 0;
  let calls = 0;
  const base = (parent: string | null) => {
    const created = new Date(time++).toISOString();
    return {
      id: `tb_${String(++count).padStart(6, '0')}`,
      trace_id: traceId,
      parent_block_id: parent,
      metadata: {},
      raw: null,
      extra: {},
      created_at: created,
      updated_at: created,
    };
  };
  return {
    message: (role, content) => ({
      ...base(null),
      block_type: 'MESSAGE',
      sub_type: 'MESSAGE',
      payload: { role, content },
    }),
    toolCall: (parent, name, args, callId) => ({
      ...base(parent.id),
      block_type: 'ACT',
      sub_type: 'TOOL_CALL',
      payload: { call_id: callId ?? `call_${++calls}`, name, arguments: args },
    }),
    toolResult: (parent, output, extra = {}) => {
      const callId = (parent.payload as { call_id: string }).call_id;
      const payload: Record<string, unknown> & { call_id: string } = { call_id: callId };
      if (extra.delta !== undefined) payload.delta = extra.delta;
      else payload.output = output;
      if (extra.seq !== undefined) payload.seq = extra.seq;
      return { ...base(parent.id), block_type: 'OBSERVE', sub_type: 'TOOL_RESULT', payload };
    },
    think: (parent, text) => ({
      ...base(parent.id),
      block_type: 'ACT',
      sub_type: 'THINK',
      payload: { text },
    }),
  };
}
