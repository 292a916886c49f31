import { AIMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { messageToResponse } from './message-to-response.js';

describe('messageToResponse: tools the provider ran itself', () => {
  it("reads Anthropic's server_tool_use and web_search_tool_result blocks (LangChain's standard blocks)", () => {
    const message = new AIMessage({
      content: [
        {
          type: 'server_tool_use',
          id: 'srvtoolu_1',
          name: 'web_search',
          input: { query: 'Paris weather' },
        },
        {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_1',
          content: [
            { type: 'web_search_result', url: 'https://weather.example/paris', title: 'Paris' },
          ],
        },
        { type: 'text', text: 'Sunny.' },
      ],
      response_metadata: { model_provider: 'anthropic', model_name: 'claude-sonnet-4-5' },
    });
    const response = messageToResponse(message as never);
    expect(response.text).toBe('Sunny.');
    expect(response.toolCalls).toEqual([]);
    expect(response.providerToolCalls).toEqual([
      {
        id: 'srvtoolu_1',
        name: 'web_search',
        arguments: { query: 'Paris weather' },
        output: { urls: ['https://weather.example/paris'] },
      },
    ]);
  });

  it('reads none from a message without such content', () => {
    const response = messageToResponse(new AIMessage({ content: 'Hi.' }) as never);
    expect(response.providerToolCalls).toBeUndefined();
  });
});
