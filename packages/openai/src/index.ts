export * from './tools/index.js';
export * from './wrap/index.js';
