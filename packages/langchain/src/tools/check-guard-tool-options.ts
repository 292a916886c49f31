import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import type { ToolRunnableConfig } from '@langchain/core/tools';
import { configurationError } from '@tracewarden/core';
import type { UnlinkedCallPolicy } from '../tracing/check-unlinked-tool-call.js';
import type { GuardableTool, GuardErrorMode, GuardToolsOptions } from './guard-tools.js';

/** A LangChain tool's own `_call`, as the guarded wrapper calls it. @internal */
export type ToolCall = (
  input: unknown,
  runManager: CallbackManagerForToolRun | undefined,
  config: ToolRunnableConfig | undefined,
) => unknown;

/** `guardTools`' options, checked, and each tool's own `_call` by name. @internal */
export interface CheckedGuardToolOptions {
  onGuardError: GuardErrorMode;
  /** The tools' own policy, for runs no model call proposed. */
  unlinkedPolicy: UnlinkedCallPolicy | undefined;
  /** The options core's guards take. */
  guardOptions: Omit<
    GuardToolsOptions,
    'onGuardError' | 'policy' | 'onPolicyViolation' | 'refusalMessage'
  >;
  originals: Map<string, ToolCall>;
}

/**
 * Checks `guardTools`' (or `guardTool`'s) tools and options where they are given: typed
 * `INVALID_OPTIONS` errors naming the function the user called and the option.
 * @internal
 */
export function checkGuardToolOptions(
  tools: readonly GuardableTool[],
  options: GuardToolsOptions,
  entryPoint: 'guardTools' | 'guardTool',
): CheckedGuardToolOptions {
  const toolPath = (index: number) => (entryPoint === 'guardTool' ? 'tool' : `tools[${index}]`);
  if (!Array.isArray(tools))
    throw configurationError(entryPoint, 'tools', 'an array of LangChain tools', tools);
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw configurationError(entryPoint, 'options', 'an options object (or nothing)', options);
  // guardTool() guards one tool: options by tool name would be another tool's, or a typo's
  if (entryPoint === 'guardTool' && (options as { tools?: unknown }).tools !== undefined)
    throw configurationError(
      entryPoint,
      'options.tools',
      "nothing: guardTool() takes the tool's own options directly (per-tool options are guardTools()'s)",
      (options as { tools?: unknown }).tools,
    );
  const {
    onGuardError = 'message',
    policy,
    onPolicyViolation = 'throw',
    refusalMessage,
    ...guardOptions
  } = options;
  if (onGuardError !== 'message' && onGuardError !== 'throw')
    throw configurationError(entryPoint, 'onGuardError', "'message' or 'throw'", onGuardError);
  if (
    policy !== undefined &&
    typeof (policy as { checkToolCall?: unknown } | null)?.checkToolCall !== 'function'
  )
    throw configurationError(
      entryPoint,
      'policy',
      'a policy (parsePolicy(), or an object with checkToolCall)',
      policy,
    );
  if (onPolicyViolation !== 'throw' && onPolicyViolation !== 'refuse')
    throw configurationError(
      entryPoint,
      'onPolicyViolation',
      "'throw' or 'refuse'",
      onPolicyViolation,
    );
  if (refusalMessage !== undefined && typeof refusalMessage !== 'function')
    throw configurationError(entryPoint, 'refusalMessage', 'a function', refusalMessage);
  // what to do about the tool's own policy's block, with no policy: no run would be checked
  if (policy === undefined)
    for (const option of ['onPolicyViolation', 'refusalMessage'] as const)
      if (options[option] !== undefined)
        throw configurationError(
          entryPoint,
          option,
          `no ${option} without a policy: it says what to do when the tool's own policy blocks a run no model call proposed, and no policy is given (calls a model proposed are judged by the handler's or the middleware's policy); pass policy, or leave ${option} out`,
          options[option],
        );
  const unlinkedPolicy: UnlinkedCallPolicy | undefined =
    policy === undefined ? undefined : { policy, mode: onPolicyViolation, refusalMessage };
  const originals = new Map<string, ToolCall>();
  for (const [index, tool] of (tools as readonly GuardableTool[]).entries()) {
    const call = (tool as unknown as { _call?: unknown } | null)?._call;
    if (typeof call !== 'function' || typeof tool.name !== 'string')
      throw configurationError(
        entryPoint,
        toolPath(index),
        'a LangChain tool (tool(), DynamicStructuredTool, a StructuredTool subclass)',
        tool,
      );
    if (originals.has(tool.name))
      throw configurationError(
        entryPoint,
        `${toolPath(index)}.name`,
        'a unique tool name',
        tool.name,
      );
    originals.set(tool.name, call as ToolCall);
  }
  return { onGuardError, unlinkedPolicy, guardOptions, originals };
}
