export {
  defaultOrganization,
  defaultPort,
  type RunningServer,
  resolveDataDir,
  type StartServerOptions,
  startServer,
} from './start-server.js';
