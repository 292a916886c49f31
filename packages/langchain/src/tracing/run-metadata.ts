/** What a block's `metadata.langchain` is made from: a run and its parents. @internal */
export interface RunInfo {
  readonly runId: string;
  readonly parent: RunInfo | undefined;
  readonly name: string | undefined;
  readonly tags: readonly string[] | undefined;
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
}

/** LangChain's own metadata keys (tracing hints and package versions), left out of blocks. */
function ownKey(key: string): boolean {
  return key.startsWith('ls_') || key === 'versions' || key.startsWith('__');
}

function userMetadata(
  metadata: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> | undefined {
  if (metadata === undefined) return undefined;
  let kept: Record<string, unknown> | undefined;
  for (const key in metadata) {
    if (ownKey(key)) continue;
    const value = metadata[key];
    if (value === undefined || typeof value === 'function') continue;
    (kept ??= {})[key] = value;
  }
  return kept;
}

/**
 * A block's `metadata.langchain`: the run's id, its parent's, its name, tags, metadata (yours
 * and LangGraph's, without LangChain's `ls_*` hints) and the names of the runs it is nested in
 * (`path`, outermost first).
 * @internal
 */
export function runMetadata(run: RunInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { run_id: run.runId };
  if (run.parent !== undefined) out.parent_run_id = run.parent.runId;
  if (run.name !== undefined) out.run_name = run.name;
  if (run.tags !== undefined && run.tags.length > 0) out.tags = [...run.tags];
  const metadata = userMetadata(run.metadata);
  if (metadata !== undefined) out.metadata = metadata;
  if (run.parent !== undefined) {
    const path: string[] = [];
    for (let parent: RunInfo | undefined = run.parent; parent !== undefined; parent = parent.parent)
      path.push(parent.name ?? parent.runId);
    out.path = path.reverse();
  }
  return out;
}
