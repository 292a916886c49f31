import type { PolicyEventType } from '../policy-types.js';
import { memberValueTypes } from '../runtime/member-variables.js';
import {
  type Block,
  type Env,
  eventTypes,
  maxVariables,
  memberDeclaration,
  type Scope,
  typeError,
  type VariableSymbol,
} from './compile-context.js';
import type { Expr, Statement } from './policy-ast.js';

/**
 * @internal Declares the names of a block before any line is compiled, so a line may use a
 * variable or binding that a later line declares: typed event variables `(x: T)` wherever they
 * appear, typed members `(x: T) in ...`, and bindings `name := ...` with their frame slots.
 */
export function declareBlock(body: Statement[], scope: Scope, block: Block, env: Env): void {
  const visit = (expr: Expr): void => {
    switch (expr.kind) {
      case 'declaration':
        declareVariable(expr, scope, block, env);
        return;
      case 'list':
        expr.items.forEach(visit);
        return;
      case 'dict':
        for (const entry of expr.entries) {
          visit(entry.key);
          visit(entry.value);
        }
        return;
      case 'comprehension':
        visit(expr.iterable);
        return;
      case 'unary':
        visit(expr.operand);
        return;
      case 'binary':
      case 'logical':
        visit(expr.left);
        visit(expr.right);
        return;
      case 'compare':
        expr.operands.forEach(visit);
        return;
      case 'pattern':
        visit(expr.subject);
        return;
      case 'member':
        visit(expr.object);
        return;
      case 'index':
        visit(expr.object);
        visit(expr.index);
        return;
      case 'call':
        visit(expr.callee);
        expr.args.forEach(visit);
        for (const named of expr.namedArgs) visit(named.value);
        return;
      default:
        return;
    }
  };
  for (const statement of body) {
    const member = memberDeclaration(statement);
    if (member !== undefined) {
      declareMember(member.declaration, statement, scope, block, env);
      visit(member.collection);
      continue;
    }
    if (statement.kind === 'binding') {
      if (statement.name === 'input')
        typeError('input is the policy parameters and cannot be assigned', statement);
      const existing = scope.names.get(statement.name);
      if (existing !== undefined)
        typeError(
          `${statement.name} is already defined in this block; choose another name`,
          statement,
        );
      visit(statement.expr);
      const slot = env.frame.allocate();
      const locationSlot = env.frame.allocate();
      env.frame.bindingSlots.push(slot, locationSlot);
      scope.names.set(statement.name, {
        kind: 'binding',
        name: statement.name,
        slot,
        locationSlot,
        located: undefined,
        expr: statement.expr,
        scope,
        frame: env.frame,
        state: 'new',
        compiled: undefined,
        at: { line: statement.line, column: statement.column },
      });
    } else if (statement.kind === 'condition') {
      visit(statement.expr);
    }
  }
}

/** A typed event variable `(x: T)`; declaring it again with the same type refers to it. */
function declareVariable(
  expr: Extract<Expr, { kind: 'declaration' }>,
  scope: Scope,
  block: Block,
  env: Env,
): void {
  if (!env.declarations) {
    typeError(
      `a typed variable (${expr.name}: ${expr.type}) can only be declared in a rule body or quantifier block`,
      expr,
    );
  }
  if (!eventTypes.has(expr.type)) {
    typeError(
      memberValueTypes.has(expr.type)
        ? `a typed member (${expr.name}: ${expr.type}) must be the left side of 'in' on a line of its own, like (${expr.name}: ${expr.type}) in msg.content.splitlines()`
        : `unknown event type ${expr.type}; expected Message, ToolCall, ToolOutput, Tool or Event`,
      expr.typePosition,
    );
  }
  const existing = scope.lookup(expr.name);
  if (existing !== undefined) {
    if (existing.kind === 'variable' && existing.member !== undefined)
      typeError(`${expr.name} is already a typed member; choose another variable name`, expr);
    if (existing.kind !== 'variable')
      typeError(`${expr.name} is already defined as a binding; choose another variable name`, expr);
    if (existing.type !== expr.type) {
      typeError(
        `${expr.name} is already declared as ${existing.type}; expected the same type, found ${expr.type}`,
        expr.typePosition,
      );
    }
    return;
  }
  if (block.variables.length >= maxVariables)
    typeError(`too many quantified variables; at most ${maxVariables} per block`, expr);
  const symbol: VariableSymbol = {
    kind: 'variable',
    name: expr.name,
    type: expr.type as PolicyEventType,
    slot: env.frame.allocate(),
    block,
    index: block.variables.length,
    member: undefined,
  };
  block.variables.push(symbol);
  scope.names.set(expr.name, symbol);
}

/** A typed member `(name: T) in ...` of a block. */
function declareMember(
  declaration: Extract<Expr, { kind: 'declaration' }>,
  statement: Statement,
  scope: Scope,
  block: Block,
  env: Env,
): void {
  const { name, type } = declaration;
  if (!memberValueTypes.has(type) && !eventTypes.has(type)) {
    typeError(
      `unknown member type ${type}; expected str, dict, int, float, bool, list, a content type (Content, TextContent, ImageContent) or an event type`,
      declaration.typePosition,
    );
  }
  if (scope.lookup(name) !== undefined)
    typeError(`${name} is already defined; a typed member needs a name of its own`, declaration);
  if (block.members.length >= maxVariables)
    typeError(`too many typed members; at most ${maxVariables} per block`, declaration);
  const symbol: VariableSymbol = {
    kind: 'variable',
    name,
    type: eventTypes.has(type) ? (type as PolicyEventType) : 'Event',
    slot: env.frame.allocate(),
    block,
    index: block.members.length,
    member: { type, locationSlot: env.frame.allocate(), statement },
  };
  block.members.push(symbol);
  scope.names.set(name, symbol);
}
