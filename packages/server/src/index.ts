export * from './config/index.js';
export * from './errors/index.js';
export * from './openapi/index.js';
export * from './server/index.js';
export * from './storage/index.js';
