export {
  createStreamValidator,
  type StreamValidator,
  type StreamValidatorOptions,
  type ValidationCounts,
} from './create-stream-validator.js';
export { toProblem } from './to-problem.js';
