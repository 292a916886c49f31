import { detectPii } from '../detectors/detect-pii.js';
import { detectSecrets } from '../detectors/detect-secrets.js';
import { isRecord } from '../runtime/is-record.js';
import { PolicyEvent } from '../runtime/policy-event.js';
import { compilePolicyRegex, type PolicyRegex } from '../runtime/policy-regex.js';
import {
  getMember,
  isForbiddenMember,
  parseJsonText,
  toText,
  valuesEqual,
} from '../runtime/policy-values.js';
import type { EvalContext } from '../runtime/rule-plan.js';
import { typeError } from './compile-context.js';
import type { PatternValue, Position, ToolPattern } from './policy-ast.js';

/**
 * @internal Compiles `tool:name({...})`: a test of a value (an event or a tool-call object) against
 * the name pattern and the argument patterns.
 */
export function compileToolPattern(
  pattern: ToolPattern,
): (value: unknown, ctx: EvalContext) => boolean {
  const nameRegex = regexOrFail(pattern.name, 'tool name pattern', pattern);
  const args = pattern.arguments === undefined ? undefined : patternValue(pattern.arguments);
  const plain = pattern.plainName ? pattern.name : undefined;
  return (value, ctx) => {
    let call: Record<string, unknown> | undefined;
    if (value instanceof PolicyEvent) {
      const event = value;
      // an output carries the name of the call it answers
      if (event.kind === 'ToolOutput' ? event.callPosition < 0 : event.kind !== 'ToolCall')
        return false;
      const name = event.toolName;
      if (plain !== undefined ? name !== plain : !nameRegex?.test(name ?? '')) return false;
      if (args === undefined) return true;
      call = (event.kind === 'ToolOutput' ? ctx.run.store.event(event.callPosition) : event).data;
    } else if (isRecord(value)) {
      call = value;
      const name = getMember(call.function, 'name');
      if (typeof name !== 'string' || !nameRegex?.test(name)) return false;
      if (args === undefined) return true;
    } else {
      return false;
    }
    return args(getMember(call.function, 'arguments'), ctx);
  };
}

function patternValue(pattern: PatternValue): (value: unknown, ctx: EvalContext) => boolean {
  switch (pattern.kind) {
    case 'wildcard':
      return () => true;
    case 'value': {
      const expected = pattern.value;
      return (value) => valuesEqual(value, expected);
    }
    case 'regex': {
      const regex = regexOrFail(pattern.source, 'regular expression in tool pattern', pattern);
      return (value) => {
        if (typeof value === 'string') return regex.test(value);
        if (typeof value === 'number' || typeof value === 'boolean')
          return regex.test(toText(value));
        return false;
      };
    }
    case 'placeholder': {
      const entity = pattern.entity;
      return (value, ctx) => {
        if (typeof value !== 'string') return false;
        const pii = (ctx.run.detectors.pii ?? detectPii)(value);
        if (pii.some((f) => f.type === entity)) return true;
        return (ctx.run.detectors.secrets ?? detectSecrets)(value).some((f) => f.type === entity);
      };
    }
    case 'list': {
      const items = pattern.items.map((item) => patternValue(item));
      return (value, ctx) =>
        Array.isArray(value) &&
        value.length === items.length &&
        items.every((m, k) => m(value[k], ctx));
    }
    case 'dict': {
      const entries = pattern.entries.map((e) => {
        if (isForbiddenMember(e.key))
          typeError(`argument ${e.key} is not accessible in policies`, e.value);
        return { key: e.key, match: patternValue(e.value) };
      });
      return (value, ctx) => {
        const record =
          typeof value === 'string'
            ? parseJsonText(value)
            : value instanceof PolicyEvent
              ? value.data
              : value;
        if (typeof record !== 'object' || record === null || Array.isArray(record)) return false;
        return entries.every(
          (e) =>
            Object.hasOwn(record, e.key) &&
            e.match((record as Record<string, unknown>)[e.key], ctx),
        );
      };
    }
    default: {
      const never: never = pattern;
      return never;
    }
  }
}

/** A full-match pattern of a tool pattern, or a `POLICY_TYPE` error saying why it is unusable. */
function regexOrFail(source: string, what: string, at: Position): PolicyRegex {
  const regex = compilePolicyRegex(source, 'full');
  if (typeof regex === 'string')
    typeError(`unusable ${what} ${JSON.stringify(source)}: ${regex}`, at);
  return regex;
}
