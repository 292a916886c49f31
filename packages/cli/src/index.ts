export * from './checking/index.js';
export * from './commands/index.js';
export * from './errors/index.js';
export * from './formats/index.js';
export * from './output/index.js';
export * from './program/index.js';
export * from './stats/index.js';
export * from './traces/index.js';
