import type { recordToolResult } from '@tracewarden/core';
import {
  errorOutputOf,
  errorStatusOf,
  errorSummaryOf,
  toolOutcomeOf,
} from '../messages/tool-output.js';

/** What `recordToolResult` takes for one tool run. @internal */
export type ToolResultInput = Parameters<typeof recordToolResult>[1];

/** A tool run as its TOOL_RESULT describes it. @internal */
export interface ToolRun {
  readonly callId: string;
  readonly toolName: string | undefined;
  /** `performance.now()` when the tool started. */
  readonly startedAt: number;
  /** The block's `metadata.langchain`, if any. */
  readonly langchain?: Record<string, unknown> | undefined;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function metadataOf(run: ToolRun, status: string): Record<string, unknown> {
  const metadata: Record<string, unknown> = {
    status,
    tool_name: run.toolName,
    execution_time_ms: round(performance.now() - run.startedAt),
  };
  if (run.langchain !== undefined) metadata.langchain = run.langchain;
  return metadata;
}

/**
 * The TOOL_RESULT of a tool run that returned `output` (a `ToolMessage`, a command, a value):
 * its content, status, artifact and time.
 * @internal
 */
export function toolResultOf(output: unknown, run: ToolRun): ToolResultInput {
  const outcome = toolOutcomeOf(output, run.callId);
  return {
    callId: run.callId,
    output: outcome.output,
    metadata: metadataOf(run, outcome.status),
    extra: outcome.extra,
  };
}

/**
 * The TOOL_RESULT of a tool run that threw: the text the model reads for it as its output (`read`,
 * when the caller knows it; else `Error: <message>`), its status (a guard error's own, else
 * `failure`) and summary.
 * @internal
 */
export function failedToolResultOf(error: unknown, run: ToolRun, read?: string): ToolResultInput {
  const metadata = metadataOf(run, errorStatusOf(error));
  metadata.error = errorSummaryOf(error);
  return { callId: run.callId, output: read ?? errorOutputOf(error), metadata };
}
