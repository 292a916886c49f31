import { createTracer, validateBlocks, type Block, type Tracer } from '@tracewarden/core';
import { startScriptedServer, type ScriptedServer, type ScriptedServerOptions } from '@tracewarden/testing';
import OpenAI from 'openai';
import type {
  Response,
  ResponseInputItem,
  ResponseStreamEvent,
  Tool,
} from 'openai/resources/responses/responses';
import { expect, onTestFinished } from 'vitest';
import { wrapOpenAI, type WrapOpenAIOptions } from '../index.js';

/** A scripted server, a tracer and a wrapped real OpenAI client pointed at the server. */
export async function setup(
  serverOptions: ScriptedServerOptions,
  wrapOptions: WrapOpenAIOptions = {},
  clientOptions: ConstructorParameters<typeof OpenAI>[0] = {},
): Promise<{ server: ScriptedServer; tracer: Tracer; client: OpenAI }> {
  const server = await startScriptedServer(serverOptions);
  const tracer = createTracer();
  const client = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'sk-test-secret', maxRetries: 0, ...clientOptions }), {
    tracer,
    ...wrapOptions,
  });
  return { server, tracer, client };
}

/** {@link setup} for one test: the server closes when the test finishes. */
export async function setupForTest(
  serverOptions: ScriptedServerOptions,
  wrapOptions: WrapOpenAIOptions = {},
): Promise<{ server: ScriptedServer; tracer: Tracer; client: OpenAI }> {
  const result = await setup(serverOptions, wrapOptions);
  onTestFinished(() => result.server.close());
  return result;
}

/** Blocks reduced to what must not depend on streaming: sub type, parent position, payload. */
export function shape(blocks: readonly Block[]): unknown[] {
  const index = new Map(blocks.map((block, i) => [block.id, i]));
  return blocks.map((block) => ({
    sub_type: block.sub_type,
    parent: block.parent_block_id === null ? null : index.get(block.parent_block_id),
    payload: block.payload,
  }));
}

/** One Responses API call, streamed or not: the final response and, streamed, every event. */
export async function responsesTurn(
  client: OpenAI,
  input: ResponseInputItem[],
  stream: boolean,
  tools?: Tool[],
): Promise<{ response: Response; events: ResponseStreamEvent[] }> {
  const request = { model: 'gpt-4o-mini', input, ...(tools === undefined ? {} : { tools }) };
  if (!stream) return { response: await client.responses.create(request), events: [] };
  const events: ResponseStreamEvent[] = [];
  let response: Response | undefined;
  for await (const event of await client.responses.create({ ...request, stream: true })) {
    events.push(event);
    if (event.type === 'response.completed') response = event.response;
  }
  if (response === undefined) throw new Error('the stream ended without response.completed');
  return { response, events };
}

/** The TOOL_CALL recorded under `callId`. */
export function toolCall(tracer: Tracer, callId: string): Block | undefined {
  return tracer
    .blocks()
    .find((block) => block.sub_type === 'TOOL_CALL' && block.payload.call_id === callId);
}

/** The TOOL_RESULT of `callId`, under that call's block. */
export function resultUnder(tracer: Tracer, callId: string): Block | undefined {
  const call = toolCall(tracer, callId);
  return tracer
    .blocks()
    .find(
      (block) =>
        block.sub_type === 'TOOL_RESULT' &&
        block.payload.call_id === callId &&
        block.parent_block_id === call?.id,
    );
}

/** The trace passes seed 002's validation and stitches with no orphans. */
export function expectWholeTrace(tracer: Tracer): void {
  expect(validateBlocks(tracer.blocks()).ok).toBe(true);
  expect(tracer.stitched().orphans).toEqual({ tool_calls: [], tool_results: [] });
}
