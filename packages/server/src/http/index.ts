export { type BodyLimits, readJsonBody } from './read-json-body.js';
export { sendJson } from './send-json.js';
