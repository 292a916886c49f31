export {
  defaultTracerOf,
  isWrapped,
  type OpenAIClientLike,
  type WrapOpenAIOptions,
  type WrapPricingOption,
  wrapOpenAI,
} from './wrap-openai.js';
