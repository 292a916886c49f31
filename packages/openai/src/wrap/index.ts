export type { WrapPricingOption } from './resolve-pricer.js';
export {
  defaultTracerOf,
  isWrapped,
  type OpenAIClientLike,
  type WrapOpenAIOptions,
  wrapOpenAI,
} from './wrap-openai.js';
