export { type BodyLimits, readJsonBody, readTextBody } from './read-json-body.js';
export { sendJson, sendJsonText } from './send-json.js';
