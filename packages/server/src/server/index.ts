export {
  defaultOrganization,
  defaultPort,
  type RunningServer,
  resolveDatabaseUrl,
  resolveDataDir,
  type StartServerOptions,
  startServer,
} from './start-server.js';
