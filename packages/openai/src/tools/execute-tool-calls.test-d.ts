import { guard } from '@tracewarden/core';
import type OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type ChatToolMessage,
  executeToolCalls,
  type ToolCallOutputItem,
} from './execute-tool-calls.js';

declare const message: OpenAI.Chat.Completions.ChatCompletionMessage;
declare const response: OpenAI.Responses.Response;

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

  it("answers a Response with items the next request's input takes, custom tool outputs included", async () => {
    const applyPatch = ({ input }: { input: string }) => input.length;
    const outputs = await executeToolCalls(response, { apply_patch: applyPatch });
    expectTypeOf(outputs).toEqualTypeOf<ToolCallOutputItem[]>();
    expectTypeOf(outputs).toMatchTypeOf<ResponseInputItem[]>();
  });
});
