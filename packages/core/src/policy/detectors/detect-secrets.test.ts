import { describe, expect, it } from 'vitest';
import { detectSecrets } from './detect-secrets.js';

// Fake keys in OpenAI's formats: a base64url body, `T3BlbkFJ` ("OpenAI" in base64) in the middle
// of the full-length ones; none of them was ever issued
const body = (length: number, seed: number): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let out = '';
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    out += alphabet[state % alphabet.length];
  }
  return out;
};
const alphanumeric = (length: number, seed: number) =>
  body(length * 2, seed)
    .replace(/[-_]/g, '')
    .slice(0, length);

const keys = {
  project: `sk-proj-${body(74, 1)}T3BlbkFJ${body(74, 2)}`,
  'project (older, shorter)': `sk-proj-${body(48, 3)}`,
  'project (from a .env in a test corpus)': 'sk-proj-Abc123XyZ789DefGhi456JklMno0PqrStu1VwxYz2',
  'service account': `sk-svcacct-${body(74, 4)}T3BlbkFJ${body(74, 5)}`,
  admin: `sk-admin-${body(58, 6)}T3BlbkFJ${body(58, 7)}`,
  'user (before 2024)': `sk-${alphanumeric(20, 8)}T3BlbkFJ${alphanumeric(20, 9)}`,
  'user (48 characters, no marker)': `sk-${alphanumeric(48, 10)}`,
};

describe('detectSecrets: OpenAI API keys', () => {
  for (const [format, key] of Object.entries(keys)) {
    it(`finds a ${format} key, whole`, () => {
      const text = `OPENAI_API_KEY=${key}\nDEBUG=false`;
      expect(detectSecrets(text)).toContainEqual({
        type: 'OPENAI_TOKEN',
        start: 15,
        end: 15 + key.length,
      });
    });
  }

  it('finds a key inside a URL the model built', () => {
    const key = keys['project (from a .env in a test corpus)'];
    const url = `https://telemetry.sdk-validate.io/check?key=${key}`;
    expect(detectSecrets(url)).toContainEqual({
      type: 'OPENAI_TOKEN',
      start: url.indexOf('sk-'),
      end: url.length,
    });
  });

  it('takes no slug or prose for a key', () => {
    for (const text of [
      'see sk-proj-settings-page-layout-and-theme for details',
      'the task-list is short',
      'a risk-assessment-of-the-whole-project-plan',
    ])
      expect(detectSecrets(text).filter((f) => f.type === 'OPENAI_TOKEN')).toEqual([]);
  });
});
