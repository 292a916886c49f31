export { formatServerSentEvent } from './format-server-sent-event.js';
export type { OpenAIErrorBody } from './openai-error-body.js';
export { faultErrorBody, openAIErrorBody } from './openai-error-body.js';
export { redactHeaders } from './redact-headers.js';
