/**
 * What the policy API files (`parse-policy.ts`, `policy.ts`, `policy-monitor.ts`,
 * `event-matchers.ts`, `text-detectors.ts`) call in the policy language, runtime and detectors:
 * a third of core's code, which a process that only traces and guards never runs. The build
 * makes this file a chunk of its own (`dist/policy.js`), loaded on first use by
 * {@link loadPolicyEngine}; see decision 110.
 */
export { detectCopyright } from './detectors/detect-copyright.js';
export { detectPii } from './detectors/detect-pii.js';
export { findPromptInjection, promptInjectionScore } from './detectors/detect-prompt-injection.js';
export { detectSecrets } from './detectors/detect-secrets.js';
export { detectUnicode } from './detectors/detect-unicode.js';
export { extractHtmlData } from './detectors/extract-html-data.js';
export { extractLinks } from './detectors/extract-links.js';
export { findFuzzy, fuzzyTolerance } from './detectors/find-fuzzy.js';
export { PolicyCompiler } from './language/compile-policy.js';
export { parsePolicyText } from './language/parse-policy-text.js';
export { PolicySession } from './runtime/policy-session.js';
export { textsOf, valuesEqual } from './runtime/policy-values.js';
export { proposeToolCall } from './runtime/propose-tool-call.js';
