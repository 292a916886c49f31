/**
 * What every corpus generator shares (decision 050): the seeded random numbers, the builder of a
 * run's messages (OpenAI format: an assistant message with one tool call, then its output) and
 * the writing of a split's runs as JSONL. Kept in one place so that the splits stay byte-for-byte
 * reproducible by every generator alike.
 * @internal
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenignStory, Call, CorpusRun, CorpusSplit } from './corpus-types.js';

export const json = (value: unknown): string => JSON.stringify(value);

/** mulberry32: a small seeded generator, so the corpus is reproducible. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A run's messages as they are built: `say` adds a message, `call` an assistant message with one
 * tool call (ids `call_<idPrefix>_<n>`) and, unless `output` is `null`, the tool's output.
 * @param idPrefix - what tells this run's call ids from other runs' (its seed, with a letter per generator)
 */
export function conversation(idPrefix: string) {
  let counter = 0;
  const messages: Record<string, unknown>[] = [];
  return {
    messages,
    say(role: string, content: string): void {
      messages.push({ role, content });
    },
    /** @returns the index of the assistant message that makes the call */
    call(call: Call, output: string | null, text: string | null = null): number {
      const id = `call_${idPrefix}_${++counter}`;
      messages.push({
        role: 'assistant',
        content: text,
        tool_calls: [{ id, type: 'function', function: { name: call.name, arguments: json(call.args) } }],
      });
      const at = messages.length - 1;
      if (output !== null) messages.push({ role: 'tool', tool_call_id: id, content: output });
      return at;
    },
  };
}

/**
 * Writes each split as `<name>.jsonl` next to the generator (one run per line) and says how
 * many runs each has.
 * @param generatorUrl - the generator's `import.meta.url`
 * @param splits - the runs of each split, by file name
 */
export function writeSplits(generatorUrl: string, splits: Record<string, CorpusRun[]>): void {
  const here = dirname(fileURLToPath(generatorUrl));
  for (const [name, runs] of Object.entries(splits)) {
    writeFileSync(join(here, `${name}.jsonl`), `${runs.map((run) => json(run)).join('\n')}\n`);
    console.log(`${name}: ${runs.length} runs`);
  }
}

/**
 * Whether the generator at `generatorUrl` is the script node was started with.
 * @param generatorUrl - the generator's `import.meta.url`
 */
export const isMain = (generatorUrl: string): boolean =>
  process.argv[1] === fileURLToPath(generatorUrl);

/**
 * The benign runs of a split's stories, ids `<split>-<domain>-benign-story-<n>`, their
 * messages' ids from `<idLetter><idBase + n>`.
 */
export function benignStoryRuns(
  split: CorpusSplit,
  stories: readonly BenignStory[],
  idLetter: string,
  idBase: number,
): CorpusRun[] {
  return stories.map((story, s) => {
    const c = conversation(`${idLetter}${idBase + s}`);
    c.say('system', story.domain.system);
    c.say('user', story.prompt);
    c.call(story.read, story.output);
    for (const act of story.acts) c.call(act, json({ status: 'ok' }));
    c.say('assistant', 'Done.');
    return {
      id: `${split}-${story.domain.name}-benign-story-${s}`,
      split,
      domain: story.domain.name,
      label: 'benign',
      messages: c.messages,
    };
  });
}
