import type { PolicyAction } from '../policy-types.js';
import type { RulePlan } from '../runtime/rule-plan.js';
import { type Block, type CompileContext, type Env, Frame, Scope } from './compile-context.js';
import { compileExpression } from './compile-expression.js';
import { declareBlock } from './declare-block.js';
import { planBlock } from './plan-block.js';
import type { TopLevel } from './policy-ast.js';

/**
 * @internal Compiles a rule `raise "message" if: ...` to its plan. Its action comes from
 * `options.actions` (by message, name or index, in that order), else its `# action:` comment,
 * else `block`.
 */
export function compileRule(
  context: CompileContext,
  item: Extract<TopLevel, { kind: 'rule' }>,
  index: number,
): RulePlan {
  const frame = new Frame();
  const scope = new Scope(undefined);
  const block: Block = { variables: [], members: [] };
  const env: Env = { frame, declarations: true };
  declareBlock(item.body, scope, block, env);
  const planned = planBlock(context, item.body, scope, block, env, true);
  // the arguments of `raise` describe a violation; they cannot declare variables
  const describeEnv: Env = { frame, declarations: false };
  const argExprs = item.args.map((arg) => compileExpression(context, arg, scope, describeEnv));
  const namedExprs = item.namedArgs.map((arg) => ({
    name: arg.name,
    value: compileExpression(context, arg.value, scope, describeEnv),
  }));
  const name = item.name;
  const actions = context.options.actions;
  const configured =
    actions[item.message] ?? (name !== undefined ? actions[name] : undefined) ?? actions[index];
  const action: PolicyAction =
    configured ?? (item.action?.value as PolicyAction | undefined) ?? 'block';
  return {
    ...planned.plan,
    index,
    name,
    message: item.message,
    action,
    frameSize: frame.size,
    wholeTrace: planned.wholeTrace || block.variables.length === 0,
    describe:
      argExprs.length === 0 && namedExprs.length === 0
        ? undefined
        : (ctx) => ({
            args: argExprs.map((a) => a.fn(ctx)),
            namedArgs: Object.fromEntries(namedExprs.map((n) => [n.name, n.value.fn(ctx)])),
          }),
  };
}
