import type { RecordedRequest } from '../server/recorded-request.js';
import type { ScriptedTurn } from './scripted-turn.js';

/**
 * A turn that repeats the last user message as `Echo: <text>`: the server's answer when the
 * script runs out with `fallback: 'echo'`, and a handy `turns` function for demos.
 *
 * @param request - The chat completions or responses request to answer.
 * @returns A text turn.
 * @example
 * ```ts
 * const server = await startScriptedServer({ turns: echoTurn });
 * ```
 */
export function echoTurn(request: RecordedRequest): ScriptedTurn {
  return { text: `Echo: ${lastUserText(request.body)}` };
}

function lastUserText(body: Record<string, unknown> | undefined): string {
  const items = body?.messages ?? body?.input;
  if (typeof items === 'string') return items;
  if (!Array.isArray(items)) return '';
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item: unknown = items[index];
    if (isRecord(item) && item.role === 'user') return contentText(item.content);
  }
  return '';
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
