import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import {
  type AdapterRuntime,
  createStreamGate,
  handOverVerdict,
  type ModelCallDelta,
  type ModelCallHandle,
  type ModelCallOutcome,
  type ModelCallResponse,
  type ModelToolCall,
  type NeutralMessage,
  type StreamPartKind,
  type Tracer,
} from '@tracewarden/core';
import {
  finishReasonOf,
  generateResultToResponse,
  requestIdOf,
  usageOf,
} from './model-response.js';

/** Everything one model call needs, whether middleware or telemetry started it. @internal */
export interface ModelCallSetup {
  runtime: AdapterRuntime;
  /** The AI SDK provider id (`openai.chat`, `mock-provider`). */
  provider: string;
  modelId: string;
  messages: NeutralMessage[];
  tools: { name: string }[] | undefined;
  /**
   * Refuse mode: tools that refuse a blocked call themselves (guarded by `guardTools`, or run
   * through the telemetry integration's `executeTool`); their calls stay in the response.
   */
  refusesAtTool: (toolName: string) => boolean;
  /** Call settings worth keeping in `raw.request`. */
  request: Record<string, unknown>;
  /** The caller's abort signal. */
  userSignal: AbortSignal | undefined;
  /** Aborts the request when a guard stops the call (its signal is in the request). */
  stop: AbortController | undefined;
  tracer?: Tracer | undefined;
  stream: boolean;
}

/** Starts the call: the guards decide (a refusal throws), the new prompt messages are recorded. */
function start(setup: ModelCallSetup): ModelCallHandle {
  const handle = setup.runtime.recorder.start({
    provider: setup.provider,
    model: setup.modelId,
    messages: setup.messages,
    tools: setup.tools,
    stream: setup.stream,
    raw: setup.runtime.recordRaw ? { request: setup.request } : undefined,
    signal: setup.userSignal,
    tracer: setup.tracer,
    keepRefusedCall: (call: ModelToolCall) => setup.refusesAtTool(call.name),
  });
  const stop = setup.stop;
  if (stop !== undefined) {
    // the timeout or live budget cut-off aborts the request the SDK sends
    handle.signal.addEventListener('abort', () => stop.abort(handle.signal.reason), { once: true });
  }
  return handle;
}

/** Settles with `promise`, or rejects with the signal's reason when it aborts first. */
function raceAbort<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

const warnedTools = new Set<string>();

/**
 * Says once per tool that a refused call of a tool that cannot refuse it itself was removed: the
 * AI SDK then ends the loop, which a user of `'refuse'` does not expect (a model middleware never
 * sees a tool's `execute`, so it cannot answer the refusal as the tool's result).
 */
function warnRemoved(toolName: string): void {
  if (warnedTools.has(toolName)) return;
  warnedTools.add(toolName);
  process.emitWarning(
    `tracewarden: the policy blocked a call of tool '${toolName}', which is not wrapped by guardTools: ` +
      'the call was removed and the refusal added to the text, so the AI SDK ends the loop here. ' +
      'Wrap the tools with guardTools(tools) (or register tracewardenTelemetry) so the tool answers ' +
      'the refusal as its result and the loop goes on.',
    { code: 'TRACEWARDEN_REFUSE_ENDS_LOOP' },
  );
}

/**
 * Hands each verdict to the tool that will run the call (a refusal to answer, or the reviewed
 * arguments and a re-check for arguments the SDK changes before running it); returns the ids of
 * calls removed from the response (refused calls no tool would refuse).
 */
function applyOutcome(outcome: ModelCallOutcome, setup: ModelCallSetup): Set<string> {
  const removed = new Set<string>();
  const recheck = outcome.recheck;
  for (const review of outcome.toolCalls) {
    const call = review.call;
    if (review.refusal !== undefined && review.refusedAtTool !== true) {
      removed.add(call.id);
      warnRemoved(call.name);
      continue;
    }
    if (setup.refusesAtTool(call.name)) handOverVerdict(review, recheck);
  }
  return removed;
}

function isClientToolCall(part: { type: string; providerExecuted?: boolean | undefined }): boolean {
  return part.type === 'tool-call' && part.providerExecuted !== true;
}

/** A finish reason without tool calls once every client tool call was removed. */
function finishWithout(
  reason: LanguageModelV4FinishReason,
  callsLeft: boolean,
): LanguageModelV4FinishReason {
  return !callsLeft && reason.unified === 'tool-calls'
    ? { unified: 'stop', raw: reason.raw }
    : reason;
}

/**
 * Runs a non-streamed model call: records it, applies the guards and the policy. `throw` mode:
 * rejects with `PolicyViolationError` (no tool runs). `refuse` mode: removed calls give way to
 * the refusal text; calls whose tool refuses them stay.
 * @internal
 */
export async function generateCall(
  setup: ModelCallSetup,
  doGenerate: () => PromiseLike<LanguageModelV4GenerateResult>,
): Promise<LanguageModelV4GenerateResult> {
  const handle = start(setup);
  let result: LanguageModelV4GenerateResult;
  try {
    // The deadline ends the call even when the provider ignores the request's signal (or there
    // is none: telemetry cannot add one).
    result = setup.runtime.hasTimeout
      ? await raceAbort(doGenerate(), handle.signal)
      : await doGenerate();
  } catch (error) {
    throw handle.end(error, setup.userSignal);
  }
  if (handle.stopped) throw handle.fail(handle.signal.reason);
  const outcome = handle.finish(generateResultToResponse(result, setup.runtime.recordRaw));
  if (outcome.toolCalls.length === 0) return result;
  const removed = applyOutcome(outcome, setup);
  if (removed.size === 0) return result;
  const content: LanguageModelV4Content[] = result.content.filter(
    (part) => !(part.type === 'tool-call' && removed.has(part.toolCallId)),
  );
  const hadText = content.some((part) => part.type === 'text' && part.text !== '');
  const refusal = outcome.refusalText ?? '';
  content.push({ type: 'text', text: hadText ? `\n\n${refusal}` : refusal });
  return {
    ...result,
    content,
    finishReason: finishWithout(result.finishReason, content.some(isClientToolCall)),
  };
}

type Part = LanguageModelV4StreamPart;

/**
 * The neutral delta of one model-layer stream part; its gate kind goes in `state.kind`. Text and
 * reasoning deltas (most parts) reuse one object per stream: the handle does not keep them.
 */
function classify(part: Part, state: StreamState): ModelCallDelta | undefined {
  state.kind = 'content';
  switch (part.type) {
    case 'text-delta':
      state.text.text = part.delta;
      return state.text;
    case 'reasoning-delta':
      state.reasoning.reasoning = part.delta;
      return state.reasoning;
    case 'response-metadata':
      return {
        ...(part.modelId === undefined ? {} : { model: part.modelId }),
        ...(part.id === undefined ? {} : { responseId: part.id }),
      };
    case 'tool-input-start': {
      if (part.providerExecuted === true) return undefined;
      const index = state.indexOf(part.id);
      state.names.set(part.id, part.toolName);
      state.kind = state.holdInput(part.toolName) ? 'tool-call-end' : 'tool-call';
      return { toolCalls: [{ index, id: part.id, name: part.toolName }] };
    }
    case 'tool-input-delta': {
      const name = state.names.get(part.id);
      if (name === undefined) return undefined;
      state.withArguments.add(part.id);
      state.kind = state.holdInput(name) ? 'tool-call-end' : 'tool-call';
      return { toolCalls: [{ index: state.indexOf(part.id), arguments: part.delta }] };
    }
    case 'tool-input-end': {
      const name = state.names.get(part.id);
      if (name === undefined) return undefined;
      state.kind = state.holdInput(name) ? 'tool-call-end' : 'tool-call';
      return undefined;
    }
    case 'tool-call': {
      if (part.providerExecuted === true) return undefined;
      const index = state.indexOf(part.toolCallId);
      const complete = !state.withArguments.has(part.toolCallId);
      state.names.set(part.toolCallId, part.toolName);
      state.kind = 'tool-call-end';
      return {
        toolCalls: [
          {
            index,
            id: part.toolCallId,
            name: part.toolName,
            ...(complete ? { arguments: part.input } : {}),
          },
        ],
      };
    }
    case 'finish':
      state.kind = 'finish';
      return { usage: usageOf(part.usage), finishReason: finishReasonOf(part.finishReason) };
    default:
      return undefined;
  }
}

/** What a stream remembers of its tool calls. */
class StreamState {
  /** The gate kind of the part just classified. */
  kind: StreamPartKind = 'content';
  readonly text: ModelCallDelta = { text: undefined };
  readonly reasoning: ModelCallDelta = { reasoning: undefined };
  readonly indexes = new Map<string, number>();
  readonly names = new Map<string, string>();
  readonly withArguments = new Set<string>();
  constructor(readonly holdInput: (toolName: string) => boolean) {}
  indexOf(id: string): number {
    let index = this.indexes.get(id);
    if (index === undefined) {
      index = this.indexes.size;
      this.indexes.set(id, index);
    }
    return index;
  }
}

function toolCallIdOf(part: Part): string | undefined {
  switch (part.type) {
    case 'tool-input-start':
    case 'tool-input-delta':
    case 'tool-input-end':
      return part.id;
    case 'tool-call':
      return part.toolCallId;
    default:
      return undefined;
  }
}

/** The held parts as delivered after the verdict: removed calls gone, the refusal as text. */
function releaseHeld(
  held: Part[],
  outcome: ModelCallOutcome,
  sawText: boolean,
  setup: ModelCallSetup,
): Part[] {
  const removed = applyOutcome(outcome, setup);
  if (removed.size === 0) return held;
  const kept = held.filter((part) => {
    const id = toolCallIdOf(part);
    return id === undefined || !removed.has(id);
  });
  const callsLeft = kept.some(isClientToolCall);
  const refusal = outcome.refusalText ?? '';
  const text: Part[] = [
    { type: 'text-start', id: 'tracewarden-refusal' },
    { type: 'text-delta', id: 'tracewarden-refusal', delta: sawText ? `\n\n${refusal}` : refusal },
    { type: 'text-end', id: 'tracewarden-refusal' },
  ];
  const finishAt = kept.findIndex((part) => part.type === 'finish');
  if (finishAt === -1) return [...kept, ...text];
  const finish = kept[finishAt] as Extract<Part, { type: 'finish' }>;
  return [
    ...kept.slice(0, finishAt),
    ...text,
    { ...finish, finishReason: finishWithout(finish.finishReason, callsLeft) },
    ...kept.slice(finishAt + 1),
  ];
}

/**
 * Observes a model-layer stream as the caller reads it (never buffered ahead of the caller):
 * aggregates each part, applies the live budget cut-off, holds tool calls and the finish while
 * the policy decides, and records the end (finished, failed, cancelled).
 */
function observe(
  source: ReadableStream<Part>,
  handle: ModelCallHandle,
  setup: ModelCallSetup,
  known: ModelCallResponse | undefined,
): ReadableStream<Part> {
  const refuse = setup.runtime.recorder.onPolicyViolation === 'refuse';
  const checkPolicy = setup.runtime.recorder.hasPolicy;
  const gate = createStreamGate(handle, { holdToolCalls: checkPolicy, dropToolCalls: false });
  // Refuse mode: the input of a call that may be removed is held until the verdict too.
  const state = new StreamState(
    checkPolicy && refuse ? (name) => !setup.refusesAtTool(name) : () => false,
  );
  const reader = source.getReader();
  let held: Part[] | undefined;
  let ended = false;
  let errorPart: unknown;
  let stopAfter: unknown;
  let hasStopAfter = false;

  if (setup.runtime.hasTimeout) {
    // A deadline also cancels the read, for providers that ignore the request's signal (and
    // telemetry, which has none); the end is then recorded as the guard's stop.
    handle.signal.addEventListener(
      'abort',
      () => {
        reader.cancel(handle.signal.reason).catch(() => {});
      },
      { once: true },
    );
  }
  const stopRequest = (): void => {
    setup.stop?.abort(gate.stopError);
    reader.cancel(gate.stopError).catch(() => {});
  };

  return new ReadableStream<Part>({
    async pull(controller) {
      if (hasStopAfter) {
        controller.error(stopAfter);
        return;
      }
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (error) {
          ended = true;
          controller.error(gate.error(error, setup.userSignal));
          return;
        }
        if (next.done) {
          ended = true;
          let release = held ?? [];
          if (errorPart !== undefined) {
            // the model reported an error: recorded as failed; no held tool call is delivered
            handle.fail(errorPart);
            release = release.filter((part) => toolCallIdOf(part) === undefined);
          } else {
            let end: ReturnType<typeof gate.end>;
            try {
              end = gate.end(setup.userSignal?.aborted === true, known);
            } catch (policyError) {
              controller.error(policyError);
              return;
            }
            if (end.kind === 'failed') {
              controller.error(end.error);
              return;
            }
            if (end.kind === 'finished')
              release = releaseHeld(release, end.outcome, gate.sawText, setup);
          }
          for (const part of release) controller.enqueue(part);
          controller.close();
          return;
        }
        const part = next.value;
        if (part.type === 'error') errorPart = part.error;
        const delta = classify(part, state);
        switch (gate.push(delta, state.kind)) {
          case 'deliver':
            controller.enqueue(part);
            return;
          case 'hold':
            (held ??= []).push(part);
            continue;
          case 'drop':
            continue;
          case 'deliver-then-stop':
            ended = true;
            controller.enqueue(part);
            stopAfter = gate.stopError;
            hasStopAfter = true;
            stopRequest();
            return;
          case 'stop':
            ended = true;
            stopRequest();
            controller.error(gate.stopError);
            return;
        }
      }
    },
    cancel(reason) {
      if (!ended) {
        ended = true;
        gate.cancel();
      }
      return reader.cancel(reason);
    },
  });
}

/**
 * Runs a streamed model call: the stream the caller reads is observed part by part.
 * @internal
 */
export async function streamCall(
  setup: ModelCallSetup,
  doStream: () => PromiseLike<LanguageModelV4StreamResult>,
): Promise<LanguageModelV4StreamResult> {
  const handle = start(setup);
  let result: LanguageModelV4StreamResult;
  try {
    result = await doStream();
  } catch (error) {
    throw handle.end(error, setup.userSignal);
  }
  const requestId = requestIdOf(result.response?.headers);
  return {
    ...result,
    stream: observe(
      result.stream,
      handle,
      setup,
      requestId === undefined ? undefined : { requestId },
    ),
  };
}
