export { createOpenApiDocument } from './create-openapi-document.js';
export { checkBody, type JsonSchema, requestSchemas } from './request-schemas.js';
