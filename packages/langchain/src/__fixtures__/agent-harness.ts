import type { BaseMessage } from '@langchain/core/messages';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import type { AdapterOptions, Tracer } from '@tracewarden/core';
import { createAgent } from 'langchain';
import { TracewardenCallbackHandler } from '../handler/index.js';
import { tracewardenAgentMiddleware } from '../middleware/index.js';
import { guardTools } from '../tools/index.js';

/** How an agent run is traced: the callback handler, or the agent middleware. */
export type Attachment = 'handler' | 'middleware';

/** A tool given as a JSON-schema definition and a function (conformance, cross-adapter). */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  execute(args: Record<string, unknown>): unknown;
}

/** One `createAgent` run with `ChatOpenAI` against an OpenAI-compatible base URL. */
export interface AgentRun {
  attachment: Attachment;
  baseURL: string;
  model: string;
  system: string;
  prompt: string;
  tools: ToolDefinition[];
  options: AdapterOptions & { tracer: Tracer };
  maxSteps: number;
  /** Wrap the tools with `guardTools`. */
  guarded?: boolean;
  /** The handler streams each model call (`preferStreaming`, LangChain's `lc_prefer_streaming`). */
  preferStreaming?: boolean;
}

/** Runs an agent, the framework running the tools; rejects with what the agent rejects with. */
export async function runAgent(run: AgentRun): Promise<BaseMessage[]> {
  let tools = run.tools.map((definition) =>
    tool(async (args: Record<string, unknown>) => definition.execute(args), {
      name: definition.name,
      description: definition.description,
      schema: definition.parameters,
    }),
  );
  if (run.guarded === true) tools = guardTools(tools);
  const model = new ChatOpenAI({
    model: run.model,
    apiKey: 'sk-test',
    configuration: { baseURL: run.baseURL },
    maxRetries: 0,
  });
  const handler =
    run.attachment === 'handler'
      ? new TracewardenCallbackHandler({
          ...run.options,
          ...(run.preferStreaming === true ? { preferStreaming: true } : {}),
        })
      : undefined;
  const agent = createAgent({
    model,
    tools,
    systemPrompt: run.system,
    middleware: run.attachment === 'middleware' ? [tracewardenAgentMiddleware(run.options)] : [],
  });
  const input = { messages: [new HumanMessage(run.prompt)] };
  const config = {
    recursionLimit: run.maxSteps * 2 + 1,
    ...(handler === undefined ? {} : { callbacks: [handler] }),
  };
  try {
    const result = await agent.invoke(input, config);
    return result.messages;
  } finally {
    // the traces' sinks, and any callback another handler left in LangChain's queue
    await handler?.flush();
  }
}
