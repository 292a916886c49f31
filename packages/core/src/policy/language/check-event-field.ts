import { closest } from '../../errors/validate-options.js';
import { type Scope, typeError } from './compile-context.js';
import type { Expr, Position } from './policy-ast.js';

/**
 * The fields seed 000 gives each event type (and the `function` of a tool call), with the ones
 * real traces commonly add. A trace may carry other fields, and a policy may read them: only a
 * name one or two edits from a known field is taken for a typo.
 */
const knownFields: Readonly<Record<string, readonly string[]>> = {
  Message: ['role', 'content', 'tool_calls', 'tool_call_id', 'name', 'refusal', 'metadata'],
  ToolCall: ['id', 'type', 'function', 'metadata'],
  ToolOutput: ['role', 'content', 'tool_call_id', 'name', 'metadata'],
  Tool: ['name', 'description', 'parameters', 'type', 'function'],
  Function: ['name', 'arguments'],
};

/**
 * Rejects a misspelt field of a typed event (`out.contents`, `call.fucntion`,
 * `call.function.argument`): such a member is always None, so the rule would never fire and
 * nothing would say why. A `POLICY_TYPE` error naming the field the policy most likely meant.
 * @param type - the event type of the object (`Message`, `ToolCall`, ..., or `Function` for a
 *   tool call's `function`)
 * @param name - the member read
 * @param at - the member's position in the policy text
 * @internal
 */
export function checkEventField(type: string, name: string, at: Position): void {
  const known = knownFields[type];
  if (known === undefined || known.includes(name)) return;
  const meant = closest(name, known);
  if (meant === undefined) return;
  typeError(
    `${type} has no field ${name}; did you mean ${meant}? (a field the event does not have is always None, so the rule would never fire)`,
    at,
  );
}

/**
 * The event type an expression statically has: a quantified variable's type, or `Function` for
 * the `function` of a tool call; `undefined` when it is not known at compile time.
 * @internal
 */
export function staticEventType(expr: Expr, scope: Scope): string | undefined {
  if (expr.kind === 'name') {
    const symbol = scope.lookup(expr.name);
    if (symbol?.kind !== 'variable') return undefined;
    return symbol.member === undefined ? symbol.type : symbol.member.type;
  }
  if (
    expr.kind === 'member' &&
    expr.name === 'function' &&
    staticEventType(expr.object, scope) === 'ToolCall'
  )
    return 'Function';
  return undefined;
}
