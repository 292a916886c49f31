export { defaultTracerOf, isWrapped, wrapOpenAI, type OpenAIClientLike, type WrapOpenAIOptions } from './wrap-openai.js';
export type { WrapPricingOption } from './resolve-pricer.js';
