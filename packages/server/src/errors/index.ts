export {
  type ErrorBody,
  ServerError,
  type ServerErrorCode,
  type ServerErrorOptions,
  serverErrorHttpStatus,
} from './server-error.js';
export { toErrorBody } from './to-error-body.js';
