import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import { generateText, isStepCount, type ToolSet, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import { scriptedModel } from './mock-model.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A `weather` tool whose run for Oslo ends before the run for Lima (5 ms against 30 ms), so
 * the two conversations of {@link concurrentCall0Runs} interleave.
 * @param answer - the tool's output for a city
 */
export function slowWeather(answer: (city: string) => unknown): ToolSet[string] {
  return tool({
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      await delay(city === 'Oslo' ? 5 : 30);
      return answer(city);
    },
  });
}

/**
 * Two conversations at once through one middleware, both numbering their one call `call_0`:
 * each asks the weather of its city (Oslo, Lima), then answers `sunny in <city>`.
 * @param middleware - the middleware both models are wrapped with
 * @param tools - the tools both runs offer (a `weather` tool, usually {@link slowWeather}'s)
 */
export async function concurrentCall0Runs(
  middleware: LanguageModelV4Middleware,
  tools: ToolSet,
): Promise<void> {
  const run = (city: string) =>
    generateText({
      model: wrapLanguageModel({
        model: scriptedModel([
          { calls: [{ id: 'call_0', name: 'weather', input: { city } }] },
          { text: `sunny in ${city}` },
        ]),
        middleware,
      }),
      prompt: `weather in ${city}?`,
      tools,
      stopWhen: isStepCount(3),
    });
  await Promise.all([run('Oslo'), run('Lima')]);
}
