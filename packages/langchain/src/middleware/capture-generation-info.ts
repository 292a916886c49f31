import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { LLMResult } from '@langchain/core/outputs';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';

/**
 * The context variable that holds the collector, and the collector's name (LangChain adds one
 * handler of a name to a run).
 */
const collectorName = 'tracewarden_generation_info';

/**
 * Keeps the `generationInfo` of each answer a chat model returns, by the answer object. A
 * streamed model call (LangGraph's `messages` mode streams inside `invoke()`) returns only the
 * aggregated chunk's message: its finish reason stays in the generation's `generationInfo`, which
 * only `handleLLMEnd` sees (`@langchain/core` copies it into `response_metadata` only when the
 * call is not streamed).
 */
class GenerationInfoCollector extends BaseCallbackHandler {
  name = collectorName;
  /** By answer object: weak, so an answer the agent drops takes its entry with it. */
  readonly byAnswer = new WeakMap<object, Record<string, unknown>>();

  constructor() {
    // awaited, not queued: the entry must be there when the model call returns to the middleware
    super({ _awaitHandler: true });
  }

  override handleLLMEnd(output: LLMResult): void {
    for (const generations of output.generations)
      for (const generation of generations) {
        const message = (generation as { message?: unknown }).message;
        const info = generation.generationInfo;
        if (typeof message === 'object' && message !== null && info !== undefined)
          this.byAnswer.set(message, info);
      }
  }
}

/** One collector for every middleware: nested calls share it, and LangChain adds it once per run. */
const collector = new GenerationInfoCollector();

/**
 * `@langchain/core/context` sets up LangChain's AsyncLocalStorage when loaded, so it is loaded on
 * the first model call (inside `createAgent`, where LangGraph has already set it up), not when
 * this package is imported.
 */
let contextModule: Promise<typeof import('@langchain/core/context')> | undefined;

/**
 * Runs one model call of the agent with a LangChain configure hook that adds a callback handler
 * to the chat model runs inside it, and returns the answer with its `generationInfo` (where a
 * streamed call keeps its finish reason). Only the runs inside `call` get the handler: the hook
 * and its context variable live in an AsyncLocalStorage scope of their own. When that cannot be
 * set up, the call runs as is and `generationInfo` is `undefined`.
 * @param call - calls the model (the agent's `wrapModelCall` handler)
 * @returns the answer and its generation's `generationInfo`, when LangChain reported one
 * @internal
 */
export async function captureGenerationInfo<Answer>(
  call: () => Promise<Answer>,
): Promise<{ answer: Answer; generationInfo: Record<string, unknown> | undefined }> {
  let context: typeof import('@langchain/core/context') | undefined;
  try {
    contextModule ??= import('@langchain/core/context');
    context = await contextModule;
  } catch {
    // a LangChain without the context entry point: the answer's own metadata is all there is
    contextModule = undefined;
  }
  if (context === undefined) return { answer: await call(), generationInfo: undefined };
  const scoped = context;
  const storage = AsyncLocalStorageProviderSingleton.getInstance();
  // `run` gives the hook a scope of its own: registering it changes the store of the current
  // scope (`enterWith`), which would otherwise last into the agent's code after this call
  const answer = await storage.run(storage.getStore(), () => {
    try {
      if (scoped.getContextVariable(collectorName) !== collector) {
        scoped.registerConfigureHook({ contextVar: collectorName });
        scoped.setContextVariable(collectorName, collector);
      }
    } catch {
      // no AsyncLocalStorage to hold the hook: the model is called all the same
    }
    return call();
  });
  const generationInfo =
    typeof answer === 'object' && answer !== null ? collector.byAnswer.get(answer) : undefined;
  return { answer, generationInfo };
}
