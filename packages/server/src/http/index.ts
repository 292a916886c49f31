export { type BodyLimits, readJsonBody, readTextBody } from './read-json-body.js';
export { sendJson } from './send-json.js';
