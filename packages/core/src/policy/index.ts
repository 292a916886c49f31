export { createMonitor } from './create-monitor.js';
export { type DefinePolicyOptions, definePolicy } from './define-policy.js';
export type { CopyrightFinding } from './detectors/detect-copyright.js';
export type { PromptInjectionFinding } from './detectors/detect-prompt-injection.js';
export type { UnicodeFinding } from './detectors/detect-unicode.js';
export type { HtmlData, HtmlFinding } from './detectors/extract-html-data.js';
export type { LinkFinding } from './detectors/extract-links.js';
export type { FuzzyFinding } from './detectors/find-fuzzy.js';
export type { ValueSource } from './detectors/find-value-sources.js';
export {
  type ArgumentPattern,
  anyEvent,
  type EventMatcher,
  message,
  toolCall,
  toolOutput,
} from './event-matchers.js';
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
  type RecommendedPolicyOptions,
  recommendedPolicy,
  recommendedPolicyText,
} from './recommended/recommended-policy.js';
export {
  type FlowCondition,
  flow,
  type RuleBindings,
  type RuleCondition,
  type RuleDefinition,
  type RuleSpec,
  rule,
} from './rule.js';
export {
  detectCopyright,
  detectPii,
  detectSecrets,
  detectUnicode,
  extractHtmlData,
  extractLinks,
  findFuzzy,
  findPromptInjection,
  fuzzyTolerance,
  promptInjectionScore,
} from './text-detectors.js';
