export { createMonitor } from './create-monitor.js';
export { type DefinePolicyOptions, definePolicy } from './define-policy.js';
export { type CopyrightFinding, detectCopyright } from './detect-copyright.js';
export { detectPii } from './detect-pii.js';
export { promptInjectionScore } from './detect-prompt-injection.js';
export { detectSecrets } from './detect-secrets.js';
export { detectUnicode, type UnicodeFinding } from './detect-unicode.js';
export {
  type ArgumentPattern,
  anyEvent,
  type EventMatcher,
  message,
  toolCall,
  toolOutput,
} from './event-matchers.js';
export { extractHtmlData, type HtmlData, type HtmlFinding } from './extract-html-data.js';
export { extractLinks, type LinkFinding } from './extract-links.js';
export { type FuzzyFinding, findFuzzy, fuzzyTolerance } from './find-fuzzy.js';
export { type ParsePolicyOptions, parsePolicy } from './parse-policy.js';
export { Policy, type PolicyRuleInfo } from './policy.js';
export { PolicyError, type PolicyErrorCode, type PolicyErrorOptions } from './policy-error.js';
export { PolicyMonitor } from './policy-monitor.js';
export type {
  PiiFinding,
  PolicyAction,
  PolicyBinding,
  PolicyDetectors,
  PolicyEventType,
  PolicyResult,
  PolicyRuleReference,
  PolicyViolation,
  ProposedToolCall,
  SecretFinding,
  ToolCallVerdict,
} from './policy-types.js';
export {
  PolicyViolationError,
  type PolicyViolationErrorOptions,
} from './policy-violation-error.js';
export {
  type FlowCondition,
  flow,
  type RuleBindings,
  type RuleCondition,
  type RuleDefinition,
  type RuleSpec,
  rule,
} from './rule.js';
