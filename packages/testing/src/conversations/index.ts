export { type EmailAgentEmail, type EmailAgentTool, emailAgent } from './email-agent.js';
