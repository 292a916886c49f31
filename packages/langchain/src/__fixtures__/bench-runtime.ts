/**
 * What `bench/langchain.bench.ts` needs from LangChain, resolved from this package (the
 * repository root does not depend on `@langchain/core`), so the bench and the handler share one
 * copy of `@langchain/core`.
 * @internal
 */
export { BaseCallbackHandler } from '@langchain/core/callbacks/base';
export { AIMessage, HumanMessage } from '@langchain/core/messages';
export { tool } from '@langchain/core/tools';
export { FakeListChatModel } from '@langchain/core/utils/testing';
export { z } from 'zod';
// the package by its own name: the built dist under `pnpm bench`, the sources under `bench:source`
export { guardTools, TracewardenCallbackHandler } from '@tracewarden/langchain';
