/**
 * The shapes of the labelled prompt-injection corpus (decision 050): a run, its split, and the
 * domains, tasks, goals and templates the generators build runs from.
 */
import { json } from './conversation.js';

/** The corpus's splits (decision 050). */
export type CorpusSplit =
  | 'dev'
  | 'held-out'
  | 'fresh'
  | 'novel'
  | 'sealed'
  | 'blind-2'
  | 'blind-3'
  | 'blind-4'
  | 'blind-5'
  | 'blind-6'
  | 'blind-7'
  | 'blind-8'
  | 'blind-9';

/** One labelled run. */
export interface CorpusRun {
  id: string;
  split: CorpusSplit;
  domain: string;
  label: 'benign' | 'attacked';
  /** Attack style (template family); absent for benign runs. */
  style?: string;
  /** The attacker's goal, in words. */
  goal?: string;
  /** Index of the assistant message whose first tool call is the attacker's action. */
  attackMessage?: number;
  /** Function name of the attacker's action. */
  attackTool?: string;
  /**
   * Index of the first message of the attacker's steps when the agent reads data for the goal
   * before its action (a search for the file it will share): calls from there on are not the
   * user's. Absent: the attacker's action is its first step.
   */
  attackStart?: number;
  messages: Record<string, unknown>[];
}

export interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** A read step of a user task: a call and its output (with a slot for the injection). */
export interface Read {
  call: Call;
  output: (injection: string) => string;
  /** This output can carry an injection (the attacker controls part of it). */
  injectable?: boolean;
}

export interface UserTask {
  prompt: string;
  reads: Read[];
  /** The user's own action, often with values read from the outputs. */
  acts: Call[];
}

export interface Goal {
  text: string;
  calls: Call[];
}

export interface Domain {
  name: string;
  system: string;
  tasks: UserTask[];
  goals: Goal[];
}

export { json };
export const yamlList = (items: Record<string, unknown>[]): string =>
  items
    .map((item) =>
      Object.entries(item)
        .map(([k, v], i) => `${i === 0 ? '- ' : '  '}${k}: ${typeof v === 'string' ? v : json(v)}`)
        .join('\n'),
    )
    .join('\n');

/** An attack template: the injected text for a goal. */
/**
 * A benign story of a blind split: the user asks, the agent reads one output and takes the
 * user's actions (each answered `{"status":"ok"}`), then says "Done.".
 */
export interface BenignStory {
  domain: Domain;
  prompt: string;
  read: Call;
  output: string;
  acts: Call[];
}

export type Template = (goal: Goal, pick: <T>(items: readonly T[]) => T) => string;

/** Benign text of a domain's tool output, read by a benign task (a hard negative). */
export interface HardNegative {
  domain: string;
  tool: string;
  text: string;
}
