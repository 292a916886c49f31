// A write the user asked for of what a source they named says (the recommended policy's
// `attacker-action` rule): "write a blog post from my notes in research/mcp.md and save it to
// blog/draft.md", "make a quiz from training/phishing.md into training/quiz.md". A value that
// reaches the content of such a write from that source is the user's to move, even when the
// source quotes an injection (a post about tool poisoning, a phishing-awareness deck). Read by
// the `user_named_copy` built-in.
import { argumentEntriesOf, argumentsOfCall, callArgumentsOf } from '../runtime/call-arguments.js';
import type { EventStore } from '../runtime/event-store.js';
import type { PolicyEvent } from '../runtime/policy-event.js';
import { containerKey, isSecretPath, itemKey, pathNamed, said } from './find-leaked-reads.js';
import { userTextsBefore } from './find-requested-actions.js';
import { toolWords } from './tool-words.js';
import { pointedOutputs, pointer, readFromPointer } from './user-sources.js';

// A tool that writes a file or a document: its words (`write file`, `create or update file`)
// say so, and none says it sends, pays, runs, shares or deletes
const writeWords =
  /(?:^| )(?:write|save|create|append|edit|update|put|overwrite|insert|replace)(?: |$)/;
const otherWords =
  /(?:^| )(?:send|mail|email|message|messages|pay|payment|transfer|run|exec|execute|shell|command|bash|terminal|script|post|publish|upload|share|invite|grant|forward|delete|remove|book|comment|tweet|push|commit|event|transaction|user|member|permission|webhook|request|http|url|fetch)(?: |$)/;
// An argument that holds what is written, not where: a file's body, a replacement text
const contentKey =
  /^(?:content|contents|text|body|markdown|md|data|html|new_content|new_text|new_str|new_string|file_text|insert_text|lines|patch|diff)$/;
// The sources a user points at that are their own documents ("in my notes", "from the sheet"),
// not what others write to them (an inbox, a chat, a ticket, a page)
const ownSource =
  /(?:registry|register|list|records?|files?|sheet|spreadsheet|folder|drive|directory|database|ledger|table|note|notes|document)$/;

// The argument's own name, from its address in the call
// (`3.tool_calls.0.function.arguments.content` -> `content`, `…arguments.edits.0.new_text` -> `new_text`)
function argumentName(argument: string): string {
  const parts = argument.split('.');
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as string;
    if (!/^\d+$/.test(part)) return part.toLowerCase();
  }
  return '';
}

// Whether the call writes into a destination the user named: every file, path or container
// argument is one the user wrote (a file by its path or its name, never by a folder alone)
function destinationNamed(call: PolicyEvent, userTexts: readonly string[]): boolean {
  let named = false;
  for (const [key, value] of argumentEntriesOf(argumentsOfCall(call))) {
    const name = key.toLowerCase();
    const item = itemKey.test(name);
    if (!item && !containerKey.test(name)) continue;
    if (typeof value !== 'string' || value.length < 2 || value.length > 300) return false;
    if (item ? !pathNamed(userTexts, value, true) : !said(userTexts, value)) return false;
    if (item) named = true;
  }
  return named;
}

// Whether the tool output at `position` was read from a source the user named: its call's file,
// path or container arguments are all ones the user wrote (a file by its path, its name or a
// folder of it; a secret's path only by its file), or a source the user pointed at ("in my
// notes") is it or holds it. A page fetched by its URL, a message read by its id, is not.
function sourceNamed(store: EventStore, position: number, userTexts: readonly string[]): boolean {
  const output = store.probe(position);
  if (output.kind !== 'ToolOutput') return false;
  let named = false;
  let unnamed = false;
  for (const [key, value] of argumentEntriesOf(callArgumentsOf(store, output))) {
    const name = key.toLowerCase();
    const item = itemKey.test(name);
    if (!item && !containerKey.test(name)) continue;
    if (
      typeof value === 'string' &&
      value.length >= 2 &&
      value.length <= 300 &&
      (item ? pathNamed(userTexts, value, isSecretPath(value)) : said(userTexts, value))
    )
      named = true;
    else unnamed = true;
  }
  if (named && !unnamed) return true;
  for (const text of userTexts)
    for (const m of text.matchAll(pointer)) {
      const words = (m[1] as string).trim().split(/\s+/);
      if (!ownSource.test(words[words.length - 1] ?? '')) continue;
      if (readFromPointer(store, position, words, pointedOutputs(store, words, position)))
        return true;
    }
  return false;
}

/**
 * Whether `call` writes, into a destination the user named, content that its `argument` (a
 * value's address in the call) carries from the tool output at `position`, read from a source
 * the user named: the user asked to move that source's words, quoted injections included. Not a
 * call that sends, pays, runs or shares (only a write of a file or a document), not a value in
 * the destination's own argument, and not a write whose destination the user did not name.
 * @internal
 */
export function isUserNamedCopy(
  store: EventStore,
  call: PolicyEvent,
  argument: string,
  position: number,
): boolean {
  if (position < 0 || position >= call.position) return false;
  const words = toolWords(call.toolName ?? '');
  if (!writeWords.test(words) || otherWords.test(words)) return false;
  if (!contentKey.test(argumentName(argument))) return false;
  const userTexts = userTextsBefore(store, call.position)
    .filter((entry) => entry.position < call.position)
    .map((entry) => entry.text);
  if (userTexts.length === 0) return false;
  return destinationNamed(call, userTexts) && sourceNamed(store, position, userTexts);
}
