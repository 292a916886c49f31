import { PolicyError } from '../policy-error.js';
import { builtins } from '../runtime/policy-functions.js';
import type { Position, TopLevel } from './policy-ast.js';

/** @internal What a policy's imports bring into scope beyond the always-available built-ins. */
export interface ImportedNames {
  /** `import json` was seen: `json.loads(...)` is `json_loads(...)`. */
  json: boolean;
  /** Imported names that stand for a differently named built-in (`links` from the HTML parser). */
  aliases: Map<string, string>;
}

const eventNames = ['Message', 'ToolCall', 'ToolOutput', 'Tool', 'Event', 'PolicyViolation'];
const detectorNames = [
  'secrets',
  'pii',
  'prompt_injection',
  'copyright',
  'unicode',
  'fuzzy_contains',
  'links',
  'domains',
];

type ModuleNames = Readonly<Record<string, Readonly<Record<string, string>>>>;

let modules: ModuleNames | undefined;

/**
 * Module -> the names it provides here (a name maps to the built-in it means). Built on the first
 * import line checked, not when core is imported (decision 110).
 */
function importableModules(): ModuleNames {
  modules ??= {
    invariant: Object.fromEntries(
      [...eventNames, ...Object.keys(builtins)].map((name) => [name, name]),
    ),
    'invariant.builtins': Object.fromEntries(Object.keys(builtins).map((name) => [name, name])),
    'invariant.detectors': Object.fromEntries(detectorNames.map((name) => [name, name])),
    'invariant.detectors.secrets': { secrets: 'secrets' },
    'invariant.detectors.pii': { pii: 'pii' },
    'invariant.detectors.prompt_injection': { prompt_injection: 'prompt_injection' },
    'invariant.detectors.copyright': { copyright: 'copyright' },
    'invariant.detectors.unicode': { unicode: 'unicode' },
    'invariant.detectors.fuzzy_matching': { fuzzy_contains: 'fuzzy_contains' },
    'invariant.parsers.html': { html_code: 'html_code', links: 'html_links' },
    'invariant.access_control': { should_allow_rbac: 'should_allow_rbac' },
    json: { loads: 'json_loads' },
  };
  return modules;
}

/** Names Invariant has that need a model, a service or a Python parser: not provided locally. */
const unavailable: Readonly<Record<string, string>> = {
  moderated: 'needs a moderation model',
  semgrep: 'runs an external tool',
  python_code: 'needs a Python parser',
  ipython_code: 'needs a Python parser',
  llm: 'calls a hosted model',
  llm_confirm: 'calls a hosted model',
};

function typeError(message: string, at: Position): never {
  throw new PolicyError({ code: 'POLICY_TYPE', message, line: at.line, column: at.column });
}

/**
 * Checks an import line against the modules that have a local implementation and records what it
 * brings into scope. Built-ins stay usable without imports, as before; an import of anything
 * else is a `POLICY_TYPE` error naming the module (or the name), never silently ignored.
 * @internal
 */
export function checkImport(
  item: Extract<TopLevel, { kind: 'import' }>,
  imported: ImportedNames,
): void {
  const modules = importableModules();
  const provided = Object.hasOwn(modules, item.module) ? modules[item.module] : undefined;
  if (provided === undefined) {
    typeError(
      `module ${item.module} has no local implementation in tracewarden; remove the import (modules available: ${Object.keys(modules).join(', ')})`,
      item,
    );
  }
  if (item.names.length === 0) {
    if (item.module === 'json') imported.json = true;
    return;
  }
  for (const { name, at } of item.names) {
    if (!Object.hasOwn(provided, name)) {
      const why = Object.hasOwn(unavailable, name) ? ` (${unavailable[name]})` : '';
      typeError(
        `${name} from ${item.module} has no local implementation${why}; expected one of ${Object.keys(provided).join(', ')}`,
        at,
      );
    }
    const target = provided[name] as string;
    if (target !== name) imported.aliases.set(name, target);
  }
}
