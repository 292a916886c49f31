import type { Budget } from './budget.js';
import { createBudget } from './create-budget.js';
import { createHallucinationDetector } from './create-hallucination-detector.js';
import { guard } from './guard.js';
import type { GuardedFunction, GuardOptions, ToolArgs } from './guard-options.js';
import { checkGuardToolsArguments } from './guard-options-schema.js';

/** Any function: the shape of one tool in a record. */
export type ToolFunction = (...args: never[]) => unknown;

/** The resolved result of a tool. */
export type ToolResult<Tool extends ToolFunction> = Awaited<ReturnType<Tool>>;

/**
 * Options of {@link guardTools}: options shared by every tool, and per-tool options (by tool
 * name) that replace shared ones key by key (a per-tool `retry` replaces the shared `retry`).
 */
export type GuardToolsOptions<Tools extends Record<string, ToolFunction>> = Omit<
  GuardOptions,
  'name'
> & {
  tools?: { [Name in keyof Tools]?: GuardOptions<ToolResult<Tools[Name]>> } | undefined;
};

/** A record of guarded tools, each typed as its tool. */
export type GuardedTools<Tools extends Record<string, ToolFunction>> = {
  [Name in keyof Tools]: GuardedFunction<
    ToolArgs<Parameters<Tools[Name]>>,
    ToolResult<Tools[Name]>
  >;
};

/**
 * Guards every tool of a record, each named after its key. Shared options apply to all; one
 * budget (given as options or as a `Budget`) is shared by all tools; one hallucination detector
 * knows every tool name (so a call to any other name raises `unknown_tool`) and shares the ids
 * seen in results. Tools are called with the record as `this`. Rate limits with no `sharedKey`
 * get one bucket per tool name; breakers are per tool.
 * @param tools - the tools, by name
 * @param options - shared options, and `tools` for per-tool ones
 * @returns the guarded tools, same keys
 * @example
 * ```ts
 * const guarded = guardTools({ search, sendEmail }, {
 *   retry: { maxRetries: 2 },
 *   budget: { maxCostPerSession: 2 },
 *   tools: { sendEmail: { sideEffect: 'write', rateLimit: { callsPerMinute: 10 } } },
 * });
 * await guarded.search('x');
 * ```
 */
export function guardTools<Tools extends Record<string, ToolFunction>>(
  tools: Tools,
  options: GuardToolsOptions<Tools> = {},
): GuardedTools<Tools> {
  checkGuardToolsArguments(tools, options);
  const { tools: perTool, ...shared } = options;
  const names = Object.keys(tools);
  const budget: Budget | undefined =
    shared.budget === undefined
      ? undefined
      : 'reserve' in shared.budget
        ? (shared.budget as Budget)
        : createBudget(shared.budget);
  const needsDetector =
    shared.hallucination !== undefined ||
    names.some((name) => perTool?.[name as keyof Tools]?.hallucination !== undefined);
  const detector = needsDetector
    ? (shared.hallucination?.detector ?? createHallucinationDetector({ knownTools: names }))
    : undefined;
  detector?.registerTools(names);
  const guarded: Record<string, unknown> = {};
  for (const name of names) {
    const tool = tools[name] as unknown as (...args: unknown[]) => unknown;
    const own = (perTool?.[name as keyof Tools] ?? {}) as GuardOptions;
    const merged: GuardOptions = { ...(shared as GuardOptions), ...own, name };
    if (own.budget === undefined && budget !== undefined) merged.budget = budget;
    const hallucination = own.hallucination ?? shared.hallucination;
    if (hallucination !== undefined && detector !== undefined)
      merged.hallucination = { ...hallucination, detector };
    guarded[name] = guard((...args: unknown[]) => tool.apply(tools, args), merged);
  }
  return guarded as GuardedTools<Tools>;
}
