import OpenAI, { AzureOpenAI } from 'openai';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { Stream } from 'openai/streaming';
import OpenAI6 from 'openai-v6';
import { describe, expectTypeOf, it } from 'vitest';
import { wrapOpenAI } from './wrap-openai.js';

describe('wrapOpenAI types', () => {
  it('returns exactly the client type', () => {
    const client = wrapOpenAI(new OpenAI({ apiKey: 'k' }));
    expectTypeOf(client).toEqualTypeOf<OpenAI>();
    expectTypeOf(
      wrapOpenAI(new AzureOpenAI({ apiKey: 'k', apiVersion: 'v', endpoint: 'https://x' })),
    ).toEqualTypeOf<AzureOpenAI>();
    expectTypeOf(wrapOpenAI(new OpenAI6({ apiKey: 'k' }))).toEqualTypeOf<OpenAI6>();
    expectTypeOf(client.withOptions({})).toEqualTypeOf<OpenAI>();
  });

  it('keeps subclasses and the create overloads', () => {
    class MyClient extends OpenAI {
      extra = 1;
    }
    const client = wrapOpenAI(new MyClient({ apiKey: 'k' }));
    expectTypeOf(client).toEqualTypeOf<MyClient>();
    expectTypeOf(client.extra).toEqualTypeOf<number>();
    const plain = client.chat.completions.create({ model: 'm', messages: [] });
    expectTypeOf(plain).resolves.toMatchTypeOf<ChatCompletion>();
    const streamed = client.chat.completions.create({ model: 'm', messages: [], stream: true });
    expectTypeOf(streamed).resolves.toMatchTypeOf<Stream<ChatCompletionChunk>>();
    expectTypeOf(plain.withResponse).toBeFunction();
  });

  it('rejects what is not an OpenAI client', () => {
    // @ts-expect-error not a client
    wrapOpenAI({ chat: {} });
  });
});
