import { guard } from '@tracewarden/core';
import type OpenAI from 'openai';
import { describe, expectTypeOf, it } from 'vitest';
import { type ChatToolMessage, executeToolCalls } from './execute-tool-calls.js';

declare const message: OpenAI.Chat.Completions.ChatCompletionMessage;

describe('executeToolCalls tools', () => {
  it('takes tools that state their argument types, untyped ones and guarded ones', () => {
    const sendEmail = ({ to, body }: { to: string; body: string }) => ({ sent: to, body });
    const getInbox = () => [{ from: 'a@b.c' }];
    const search = guard(async ({ q }: { q: string }) => [q], { name: 'search' });
    const loose = (args: Record<string, unknown>) => args;
    expectTypeOf(
      executeToolCalls(message, { send_email: sendEmail, get_inbox: getInbox, search, loose }),
    ).toEqualTypeOf<Promise<ChatToolMessage[]>>();
  });
});
