export {
  type ApiKeyParts,
  generateApiKey,
  hashSecret,
  parseApiKey,
  secretMatches,
} from './api-key-secret.js';
