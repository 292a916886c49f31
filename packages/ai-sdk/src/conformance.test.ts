import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  type AdapterConformanceHarness,
  adapterConformanceCases,
  type ConformanceServe,
} from '@tracewarden/core/testing';
import { type ScriptedTurn, startScriptedServer } from '@tracewarden/testing';
import {
  generateText,
  isStepCount,
  jsonSchema,
  streamText,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import { describe, it } from 'vitest';
import { guardTools, tracewardenMiddleware, tracewardenTelemetry } from './index.js';

type Mode = { guarded: boolean; stream: boolean; telemetry: boolean };

function harness(mode: Mode): AdapterConformanceHarness {
  return {
    create: (options) =>
      mode.telemetry
        ? tracewardenTelemetry(options as never)
        : tracewardenMiddleware(options as never),
    async run({ baseURL, model, system, prompt, tools, options, maxSteps }) {
      const provider = createOpenAICompatible({
        name: 'scripted',
        baseURL,
        apiKey: 'test',
        includeUsage: true,
      });
      let toolSet: ToolSet = Object.fromEntries(
        tools.map((definition) => [
          definition.name,
          tool({
            description: definition.description,
            inputSchema: jsonSchema<Record<string, unknown>>(definition.parameters as never),
            execute: async (args: Record<string, unknown>) => definition.execute(args),
          }),
        ]),
      );
      if (mode.guarded) toolSet = guardTools(toolSet, { tracer: options.tracer });
      const call = {
        model: mode.telemetry
          ? provider(model)
          : wrapLanguageModel({
              model: provider(model),
              middleware: tracewardenMiddleware(options),
            }),
        instructions: system,
        prompt,
        tools: toolSet,
        stopWhen: isStepCount(maxSteps),
        maxRetries: 0,
        ...(mode.telemetry ? { telemetry: { integrations: [tracewardenTelemetry(options)] } } : {}),
      };
      if (!mode.stream) {
        await generateText(call);
        return;
      }
      let failure: unknown;
      const result = streamText({
        ...call,
        onError: ({ error }) => {
          failure ??= error;
        },
      });
      await result.consumeStream();
      if (failure !== undefined) throw failure;
      await result.text;
    },
  };
}

const serve: ConformanceServe = (turns) => startScriptedServer({ turns: turns as ScriptedTurn[] });

for (const mode of [
  { guarded: true, stream: false, telemetry: false },
  { guarded: true, stream: true, telemetry: false },
  { guarded: false, stream: false, telemetry: false },
  { guarded: false, stream: true, telemetry: false },
  { guarded: false, stream: false, telemetry: true },
  { guarded: false, stream: true, telemetry: true },
]) {
  const name = `${mode.telemetry ? 'tracewardenTelemetry' : 'tracewardenMiddleware'}${mode.guarded ? ' + guardTools' : ''}, ${mode.stream ? 'streamText' : 'generateText'} over HTTP`;
  describe(`adapter conformance: ${name}`, () => {
    for (const testCase of adapterConformanceCases(harness(mode), serve))
      it(testCase.name, testCase.run);
  });
}
