import { PolicyError } from '../policy-error.js';
import type { PolicyAction, PolicyEventType } from '../policy-types.js';
import type { Compiled, EvalContext, PolicyFunction } from '../runtime/rule-plan.js';
import type { Expr, Position, Statement, TopLevel } from './policy-ast.js';
import type { ImportedNames } from './policy-imports.js';

/*
 * What the policy compiler's parts share: the state of one compilation, symbols, scopes, frames
 * and the compiled form of an expression (its closure, the quantified variables it reads, whether
 * it reads the whole trace).
 */

export const eventTypes: ReadonlySet<string> = new Set([
  'Message',
  'ToolCall',
  'ToolOutput',
  'Tool',
  'Event',
]);
export const maxVariables = 30;

export interface Block {
  variables: VariableSymbol[];
  /** Typed members `(x: T) in ...`, in line order. */
  members: VariableSymbol[];
}

export interface VariableSymbol {
  kind: 'variable';
  name: string;
  type: PolicyEventType;
  slot: number;
  block: Block;
  /** Index in the block's variables, or in its members for a member. */
  index: number;
  /** Set for a typed member: its element type and the slot of the element's location. */
  member: { type: string; locationSlot: number; statement: Statement } | undefined;
}

export interface BindingSymbol {
  kind: 'binding';
  name: string;
  slot: number;
  /** Slot of the bound value's location in the trace (a binding keeps its address). */
  locationSlot: number;
  expr: Expr;
  scope: Scope;
  frame: Frame;
  state: 'new' | 'compiling' | 'done';
  compiled: CompiledExpr | undefined;
  located: ((ctx: EvalContext) => [unknown, string | undefined]) | undefined;
  at: Position;
}

export interface LocalSymbol {
  kind: 'local';
  slot: number;
}

export type NameSymbol = VariableSymbol | BindingSymbol | LocalSymbol;

export interface CompiledExpr {
  fn: Compiled;
  deps: Set<VariableSymbol>;
  wholeTrace: boolean;
}

export class Scope {
  readonly names = new Map<string, NameSymbol>();
  constructor(readonly parent: Scope | undefined) {}
  lookup(name: string): NameSymbol | undefined {
    return this.names.get(name) ?? this.parent?.lookup(name);
  }
}

export class Frame {
  size = 0;
  readonly bindingSlots: number[] = [];
  allocate(): number {
    return this.size++;
  }
}

export interface Env {
  frame: Frame;
  /** Typed declarations `(x: T)` are allowed here (rule bodies and quantifier blocks). */
  declarations: boolean;
}

/** @internal Options the compiler needs. */
export interface CompileOptions {
  actions: Readonly<Record<string | number, PolicyAction>>;
  functions: Readonly<Record<string, PolicyFunction>>;
}

/**
 * @internal The state of one compilation, passed explicitly to every part of the compiler. The
 * parts recurse into each other (an expression calls a predicate, a predicate plans a block, a
 * block compiles expressions), so none keeps state of its own: predicates and global bindings are
 * compiled on first use, in any order, and remember it here.
 */
export interface CompileContext {
  readonly options: CompileOptions;
  readonly imported: ImportedNames;
  /** Predicates by name (`name(x) := ...`, `def name(x):`). */
  readonly predicates: Map<string, PredicateInfo>;
  /** Top-level bindings `name := ...` by name. */
  readonly globals: Map<string, GlobalInfo>;
}

export interface PredicateInfo {
  item: Extract<TopLevel, { kind: 'predicate' }>;
  state: 'new' | 'compiling' | 'done';
  call: ((ctx: EvalContext, args: unknown[]) => boolean) | undefined;
  wholeTrace: boolean;
}

export interface GlobalInfo {
  item: Extract<TopLevel, { kind: 'binding' }>;
  state: 'new' | 'compiling' | 'done';
  evaluate: Compiled | undefined;
}

export function typeError(message: string, at: Position): never {
  throw new PolicyError({ code: 'POLICY_TYPE', message, line: at.line, column: at.column });
}

export const constant = (value: unknown): CompiledExpr => ({
  fn: () => value,
  deps: new Set(),
  wholeTrace: false,
});

export function union(parts: CompiledExpr[]): { deps: Set<VariableSymbol>; wholeTrace: boolean } {
  const deps = new Set<VariableSymbol>();
  let wholeTrace = false;
  for (const part of parts) {
    for (const dep of part.deps) deps.add(dep);
    wholeTrace ||= part.wholeTrace;
  }
  return { deps, wholeTrace };
}

/** A line `(name: T) in collection`: a typed member of the block. */
export function memberDeclaration(
  statement: Statement,
): { declaration: Extract<Expr, { kind: 'declaration' }>; collection: Expr } | undefined {
  if (statement.kind !== 'condition') return undefined;
  const expr = statement.expr;
  if (expr.kind !== 'compare' || expr.operators.length !== 1 || expr.operators[0] !== 'in')
    return undefined;
  const [declaration, collection] = expr.operands;
  if (declaration?.kind !== 'declaration' || collection === undefined) return undefined;
  return { declaration, collection };
}
