/** Builders of valid wire blocks for the validation tests. */
export const createdAt = '2025-01-31T12:00:00.000Z';

export interface WireBlock {
  id: string;
  trace_id: string;
  sub_type: string;
  block_type?: string;
  payload: Record<string, unknown>;
  parent_block_id?: string | null;
  created_at: string;
  [key: string]: unknown;
}

export function message(id: string, traceId = 'tr_1', payload: Record<string, unknown> = { role: 'user', content: "what's the weather?" }): WireBlock {
  return { id, trace_id: traceId, sub_type: 'MESSAGE', payload, created_at: createdAt };
}

export function toolCall(id: string, parent: string, callId = `call_${id}`, traceId = 'tr_1'): WireBlock {
  return {
    id,
    trace_id: traceId,
    sub_type: 'TOOL_CALL',
    parent_block_id: parent,
    payload: { call_id: callId, name: 'get_weather', arguments: { city: 'bogotá' } },
    created_at: createdAt,
  };
}

export function toolResult(id: string, parent: string, callId = `call_${parent}`, traceId = 'tr_1', extra: Record<string, unknown> = {}): WireBlock {
  return {
    id,
    trace_id: traceId,
    sub_type: 'TOOL_RESULT',
    parent_block_id: parent,
    payload: { call_id: callId, output: { forecast: '22°C cloudy' }, ...extra },
    created_at: createdAt,
  };
}

export function think(id: string, parent: string, traceId = 'tr_1'): WireBlock {
  return {
    id,
    trace_id: traceId,
    sub_type: 'THINK',
    parent_block_id: parent,
    payload: { text: 'decide to show forecast in celsius' },
    created_at: createdAt,
  };
}

/** A small valid trace: message, think, call, result. */
export function smallTrace(traceId = 'tr_1', prefix = 'tb_'): WireBlock[] {
  return [
    message(`${prefix}m`, traceId),
    think(`${prefix}t`, `${prefix}m`, traceId),
    toolCall(`${prefix}c`, `${prefix}m`, `call_${prefix}c`, traceId),
    toolResult(`${prefix}r`, `${prefix}c`, `call_${prefix}c`, traceId),
  ];
}
