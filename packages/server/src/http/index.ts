export {
  type BodyLimits,
  readJsonBody,
  readTextBody,
  refuseUnsafeInteger,
} from './read-json-body.js';
export { sendJson, sendJsonText } from './send-json.js';
