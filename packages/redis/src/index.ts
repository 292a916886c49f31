export * from './client/index.js';
export * from './errors/index.js';
export * from './stores/index.js';
