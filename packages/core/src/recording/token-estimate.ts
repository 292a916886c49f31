import { plainText } from './message-fingerprint.js';
import type { NeutralMessage } from './types.js';

/*
 * Token estimates made before and during a call, for guards that price it while it runs.
 */

/**
 * Estimated output size in quarter tokens: about four characters make a token in Latin scripts,
 * while CJK, Hangul, Thai and similar scripts (U+0E00 and above, bar a few punctuation blocks)
 * take about a token per character — the plain characters / 4 rule under-counts them fourfold.
 * @internal
 */
export function quarterTokens(text: string): number {
  let units = text.length;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x0e00) units += 3;
  return units;
}

/** Estimated prompt tokens: characters / 4. @internal */
export function estimateTokens(messages: readonly NeutralMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    const text = plainText(message.content);
    chars +=
      text !== undefined
        ? text.length
        : message.content == null
          ? 0
          : JSON.stringify(message.content).length;
    if (message.tool_calls)
      for (const call of message.tool_calls) chars += JSON.stringify(call.function).length;
  }
  return Math.ceil(chars / 4);
}
