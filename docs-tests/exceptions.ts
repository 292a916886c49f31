/**
 * Examples that are deliberately neither run nor type-checked, each with its reason. Keep this
 * list short: fix an example rather than add it here. An entry whose example now type-checks
 * fails the docs test until it is removed, so the list never outlives its reasons.
 *
 * Keys are snippet ids: `<file>#<n>` for the n-th ts block of a README, `<file>#<declaration>`
 * for a TSDoc `@example` (`.2` for a second one on the same declaration).
 */
export const exceptions: Readonly<Record<string, string>> = {
  'packages/core/src/convert/entry-to-blocks.ts#entryToBlocks':
    'reads `.id` of a tracer method (`tracer.findToolCall` is a function, not a block); owner: core',
  'packages/core/src/model/parse-trace.ts#parseTrace':
    'shows `trace[0].tool_calls[0]...` as reading, not code: index access on a possibly-undefined element under noUncheckedIndexedAccess; owner: core',
  'packages/core/src/policy/policy-types.ts#PolicyViolation':
    'the example is a record shape (`{ key, action, ... }` in prose notation), not a statement; owner: policy',
};

/**
 * TSDoc examples that are executed as well as type-checked (README snippets opt in with
 * `<!-- docs-test: run -->` before the fence). Each runs in its own process; its
 * `console.log(...); // → shown` lines are compared with what they print.
 */
export const runnableExamples: readonly string[] = [
  'packages/core/src/tracing/with-trace.ts#withTrace',
  'packages/core/src/tracing/with-trace.ts#currentTracer',
];
