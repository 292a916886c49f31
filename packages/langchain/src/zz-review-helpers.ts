import { AIMessage } from '@langchain/core/messages';
import { type Tracer, validateBlocks } from '@tracewarden/core';
import { comparableTrace } from '@tracewarden/core/testing';

export function ai(fields: Record<string, unknown>): AIMessage {
  return new AIMessage(fields as never);
}

export function inspect(tracer: Tracer, label = '') {
  const blocks = tracer.blocks();
  const report = validateBlocks(blocks);
  const c = comparableTrace(tracer.stitched());
  const out = { label, errors: report.errors, orphans: c.orphans, messages: c.messages };
  return out;
}

export function dump(x: unknown) {
  console.log(JSON.stringify(x, null, 1));
}

import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';

/** A chat model whose turns are lists of chunks; streams them (with tokens) or concatenates. */
export class ScriptedModel extends BaseChatModel {
  turns: AIMessageChunk[][];
  i = 0;
  delayMs: number;
  seen: BaseMessage[][] = [];
  constructor(turns: AIMessageChunk[][], delayMs = 0) {
    super({});
    this.turns = turns;
    this.delayMs = delayMs;
  }
  _llmType() { return 'scripted'; }
  override bindTools(): any { return this; }
  async #next(messages: BaseMessage[], signal?: AbortSignal) {
    this.seen.push(messages);
    const turn = this.turns[this.i++ % this.turns.length]!;
    if (this.delayMs > 0) await new Promise((r, j) => { const t = setTimeout(r, this.delayMs); signal?.addEventListener('abort', () => { clearTimeout(t); j(signal.reason ?? new Error('aborted')); }); });
    return turn;
  }
  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    const turn = await this.#next(messages, options.signal);
    let m = turn[0]!;
    for (const c of turn.slice(1)) m = m.concat(c);
    return { generations: [{ text: typeof m.content === 'string' ? m.content : '', message: new (await import('@langchain/core/messages')).AIMessage({ content: m.content, tool_calls: m.tool_calls, additional_kwargs: m.additional_kwargs, response_metadata: m.response_metadata, usage_metadata: m.usage_metadata, id: m.id }) }] };
  }
  override async *_streamResponseChunks(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun) {
    const turn = await this.#next(messages, options.signal);
    for (const c of turn) {
      const text = typeof c.content === 'string' ? c.content : '';
      const chunk = new ChatGenerationChunk({ text, message: c });
      yield chunk;
      await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}
export { AIMessageChunk };
