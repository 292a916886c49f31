import { describe, expect, it } from 'vitest';
import { closestMessageRole, isKnownChatRole, knownChatRoles } from './closest-message-role.js';

describe('knownChatRoles / isKnownChatRole', () => {
  it('lists the roles the conversion maps on purpose, each to its intended MESSAGE role', () => {
    const mapped = Object.fromEntries(
      knownChatRoles.map((role) => [role, closestMessageRole(role)]),
    );
    expect(mapped).toEqual({
      system: 'system',
      developer: 'system',
      user: 'user',
      human: 'user',
      assistant: 'assistant',
      model: 'assistant',
      ai: 'assistant',
      bot: 'assistant',
      tool: 'user',
      function: 'user',
      ipython: 'user',
    });
  });

  it('ignores case as closestMessageRole does, except for tool outputs', () => {
    expect(isKnownChatRole('Assistant')).toBe(true);
    expect(isKnownChatRole('DEVELOPER')).toBe(true);
    expect(isKnownChatRole('tool')).toBe(true);
    expect(isKnownChatRole('Tool')).toBe(false);
  });

  it('does not know a misspelt role (read as a user message, which validate warns about)', () => {
    for (const role of ['asistant', 'usr', 'sytem', '', 'assistant ']) {
      expect(isKnownChatRole(role)).toBe(false);
      expect(closestMessageRole(role)).toBe('user');
    }
  });
});
