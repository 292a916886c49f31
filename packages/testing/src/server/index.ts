export type { RecordedRequest } from './recorded-request.js';
export type { ScriptedServer, ScriptedServerOptions, TurnFunction } from './scripted-server.js';
export { startScriptedServer } from './start-scripted-server.js';
