import type { Warning } from './format-warning.js';

/** Where a value was found. */
export interface ValueLocation {
  file: string;
  line?: number | undefined;
  address?: string | undefined;
}

/** Options of {@link createUnknownValueTally}. */
export interface UnknownValueTallyOptions {
  /** The warnings' code. */
  code: Warning['code'];
  /** The field, as the seed names it: `role`, `sub_type`. */
  field: string;
  /** The records that carry the field, singular and plural: `['event', 'events']`. */
  records: readonly [one: string, many: string];
  /**
   * What the command does with such records, for one and for several:
   * `['read as a user message', 'each read as a user message']`.
   */
  consequence: readonly [one: string, many: string];
  /** The values the command knows, listed in each warning. */
  known: readonly string[];
  /**
   * Distinct values remembered (with their first location); records with further values are
   * counted together, so memory stays bounded whatever the input. @default 100
   */
  maxValues?: number | undefined;
}

/** Counts unknown values and reports each once. */
export interface UnknownValueTally {
  /** Counts one record carrying `value`, remembering where the value was first seen. */
  add(value: string, at: ValueLocation): void;
  /** Records counted so far. */
  readonly count: number;
  /** One warning per distinct value, in the order first seen (plus one for values past `maxValues`). */
  warnings(): Warning[];
}

function plural(count: number, [one, many]: readonly [string, string]): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

function either(count: number, [one, many]: readonly [string, string]): string {
  return count === 1 ? one : many;
}

/**
 * Tallies a field's unknown values (a misspelt `"role": "asistant"`, `"sub_type": "TOOL_CALLL"`)
 * so that a command says so once per value, with the first place it occurs and how many
 * records carry it, instead of once per record or not at all.
 *
 * @param options - the field, what happens to its records, the known values
 * @returns an empty tally
 * @example
 * ```ts
 * const tally = createUnknownValueTally({ code: 'UNKNOWN_ROLE', field: 'role', records: ['event', 'events'], consequence: ['read as a user message', 'each read as a user message'], known: ['user', 'assistant'] });
 * tally.add('asistant', { file: 'chat.json', line: 3, address: '#0/1' });
 * tally.warnings()[0]?.message; // 'unknown role "asistant": 1 event, read as a user message; known roles: user, assistant'
 * ```
 */
export function createUnknownValueTally(options: UnknownValueTallyOptions): UnknownValueTally {
  const maxValues = options.maxValues ?? 100;
  const seen = new Map<string, { count: number; at: ValueLocation }>();
  let count = 0;
  let more: { count: number; at: ValueLocation } | undefined;
  const known = `known ${options.field === 'sub_type' ? 'sub types' : `${options.field}s`}: ${options.known.join(', ')}`;
  return {
    add(value, at) {
      count++;
      const entry = seen.get(value);
      if (entry !== undefined) entry.count++;
      else if (seen.size < maxValues) seen.set(value, { count: 1, at });
      else if (more === undefined) more = { count: 1, at };
      else more.count++;
    },
    get count() {
      return count;
    },
    warnings() {
      const warnings: Warning[] = [...seen].map(([value, { count, at }]) => ({
        code: options.code,
        value,
        count,
        ...at,
        message: `unknown ${options.field} ${JSON.stringify(value)}: ${plural(count, options.records)}, ${either(count, options.consequence)}; ${known}`,
      }));
      if (more !== undefined) {
        warnings.push({
          code: options.code,
          value: '',
          count: more.count,
          ...more.at,
          message: `${plural(more.count, options.records)} more with other unknown ${options.field} values (only the first ${maxValues} are listed), ${either(more.count, options.consequence)}; ${known}`,
        });
      }
      return warnings;
    },
  };
}
