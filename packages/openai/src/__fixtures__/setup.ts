import { createTracer, type Block, type Tracer } from '@tracewarden/core';
import { startScriptedServer, type ScriptedServer, type ScriptedServerOptions } from '@tracewarden/testing';
import OpenAI from 'openai';
import { onTestFinished } from 'vitest';
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
