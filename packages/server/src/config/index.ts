export {
  defaultServerLimits,
  resolveServerLimits,
  type ServerLimits,
} from './resolve-server-limits.js';
