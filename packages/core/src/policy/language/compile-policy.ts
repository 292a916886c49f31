import { builtins } from '../runtime/policy-functions.js';
import type { RulePlan } from '../runtime/rule-plan.js';
import { type CompileContext, type CompileOptions, typeError } from './compile-context.js';
import { compileGlobal } from './compile-global.js';
import { compilePredicate } from './compile-predicate.js';
import { compileRule } from './compile-rule.js';
import type { TopLevel } from './policy-ast.js';
import { checkImport } from './policy-imports.js';

export type { CompileOptions } from './compile-context.js';

/**
 * Compiles the syntax tree of a policy into rule plans. The constructor registers the policy's
 * imports, predicates and global bindings (each name once); {@link PolicyCompiler.compile}
 * compiles every predicate and binding (so an unused one still reports its errors) and then the
 * rules. The parts of the compiler share one {@link CompileContext}: rules
 * ({@link compileRule}), blocks (`declareBlock`, `planBlock`), quantifiers
 * (`compileQuantifier`), predicates, expressions (`compileExpression`) and tool
 * patterns (`compileToolPattern`).
 * @internal
 */
export class PolicyCompiler {
  private readonly context: CompileContext;

  constructor(
    private readonly items: TopLevel[],
    options: CompileOptions,
  ) {
    const context: CompileContext = {
      options,
      imported: { json: false, aliases: new Map() },
      predicates: new Map(),
      globals: new Map(),
    };
    const { predicates, globals } = context;
    for (const item of items) {
      if (item.kind === 'import') checkImport(item, context.imported);
      else if (item.kind === 'predicate') {
        if (predicates.has(item.name) || globals.has(item.name)) {
          typeError(`${item.name} is defined twice; give the predicate another name`, item);
        }
        if (Object.hasOwn(builtins, item.name))
          typeError(`${item.name} is a built-in function; give the predicate another name`, item);
        predicates.set(item.name, { item, state: 'new', call: undefined, wholeTrace: false });
      } else if (item.kind === 'binding') {
        if (predicates.has(item.name) || globals.has(item.name)) {
          typeError(`${item.name} is defined twice; give the binding another name`, item);
        }
        if (item.name === 'input')
          typeError('input is the policy parameters and cannot be assigned', item);
        globals.set(item.name, { item, state: 'new', evaluate: undefined });
      }
    }
    this.context = context;
  }

  compile(): RulePlan[] {
    const context = this.context;
    for (const name of context.predicates.keys())
      compilePredicate(context, name, { line: 1, column: 1 });
    for (const name of context.globals.keys()) compileGlobal(context, name, { line: 1, column: 1 });
    const rules: RulePlan[] = [];
    for (const item of this.items)
      if (item.kind === 'rule') rules.push(compileRule(context, item, rules.length));
    return rules;
  }
}
