import {
  type AdapterConformanceHarness,
  adapterConformanceCases,
  type ConformanceServe,
} from '@tracewarden/core/testing';
import { type ScriptedTurn, startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, it } from 'vitest';
import { executeToolCalls } from '../tools/execute-tool-calls.js';
import { wrapOpenAI } from './wrap-openai.js';

function harness(stream: boolean): AdapterConformanceHarness {
  return {
    create: (options) => wrapOpenAI(new OpenAI({ apiKey: 'test' }), options as never),
    async run({ baseURL, model, system, prompt, tools, options, maxSteps }) {
      const client = wrapOpenAI(new OpenAI({ baseURL, apiKey: 'test', maxRetries: 0 }), options);
      const messages: ChatCompletionMessageParam[] = [
        { role: 'system', content: system },
        { role: 'user', content: prompt },
      ];
      const definitions = tools.map((tool) => ({
        type: 'function' as const,
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      const implementations = Object.fromEntries(
        tools.map((tool) => [tool.name, (args: Record<string, unknown>) => tool.execute(args)]),
      );
      for (let step = 0; step < maxSteps; step++) {
        let message: OpenAI.Chat.Completions.ChatCompletionMessage;
        if (stream) {
          const runner = client.chat.completions.stream({ model, messages, tools: definitions });
          message = (await runner.finalChatCompletion()).choices[0]
            ?.message as OpenAI.Chat.Completions.ChatCompletionMessage;
        } else {
          const completion = await client.chat.completions.create({
            model,
            messages,
            tools: definitions,
          });
          message = completion.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage;
        }
        messages.push(message);
        if (!message.tool_calls?.length) return;
        messages.push(...(await executeToolCalls(message, implementations, { client })));
      }
    },
  };
}

const serve: ConformanceServe = (turns) => startScriptedServer({ turns: turns as ScriptedTurn[] });

for (const stream of [false, true])
  describe(`adapter conformance: wrapOpenAI, ${stream ? 'chat.completions.stream' : 'chat.completions.create'}`, () => {
    for (const testCase of adapterConformanceCases(harness(stream), serve))
      it(testCase.name, testCase.run);
  });
