// The built-ins that follow data through a trace (issue 16): where a tool call's values came
// from, whether injected text names them or asks for the call's kind of action, and whether the
// user asked for the call or handed the agent instructions found in data.
import { findInjectedRanges, findRequestSentences } from '../detectors/detect-prompt-injection.js';
import { findLeakedReads } from '../detectors/find-leaked-reads.js';
import { isUserNamedCopy } from '../detectors/find-named-copy.js';
import {
  actionKindOf,
  actionKindsOf,
  findActionRequest,
  isUserDelegated,
  isUserRequested,
  servesUserGoal,
  toolWordsPattern,
  userTextsBefore,
} from '../detectors/find-requested-actions.js';
import { findValueSources } from '../detectors/find-value-sources.js';
import { valuePattern } from '../detectors/value-pattern.js';
import { type BuiltinFunction, markFound, numberOf } from './builtin-function.js';
import { PolicyEvent } from './policy-event.js';
import { textsOf } from './policy-values.js';
import type { EvalContext } from './rule-plan.js';
import { withLocations } from './value-locations.js';

// `2.content:131-154` (as results show it) -> the internal span location of those characters
const spanLocation = (address: string | null): string | undefined => {
  if (address === null) return undefined;
  const at = address.lastIndexOf(':');
  return at < 0 ? address : `${address.slice(0, at)}\u0000${address.slice(at + 1)}`;
};

// Searches for values in any form their kind is written in (an IBAN with or without spaces, a
// link with or without scheme), cached by value: a policy asks about the same values at each output
const needleOf = valuePattern;

// The injected ranges of a text: the built-in detector's windows, or the whole text when a
// replacement classifier scores it at `threshold`
function injectedRanges(ctx: EvalContext, text: string, threshold: number): [number, number][] {
  const classifier = ctx.run.detectors.promptInjection;
  if (classifier === undefined) return findInjectedRanges(text, threshold);
  return classifier(text) >= threshold ? [[0, text.length]] : [];
}

// A to-do marker, also glued to the capitals before it ("USATODO:")
const todoMarker = /\bto-?do\s*:|[A-Z]TODO\s*:/i;

// The user's messages before a call, lower-cased: the goals a request in data may serve
const userGoals = (ctx: EvalContext, call: PolicyEvent): string[] =>
  userTextsBefore(ctx.run.store, call.position)
    .filter((entry) => entry.position < call.position)
    .map((entry) => entry.text);

/** @internal The built-ins that follow data through a trace. */
export const dataFlowFunctions: Readonly<Record<string, BuiltinFunction>> = {
  /**
   * Where each value of a tool call's arguments first appeared in the trace (issue 16): a list of
   * `{value, kind, argument, role, tool, position, address}`, each element located at the
   * characters where its value first appeared, so violations point from the source to the call.
   */
  value_sources: {
    min: 1,
    max: 1,
    call: (ctx, [value]) => {
      if (!(value instanceof PolicyEvent) || value.kind !== 'ToolCall') return [];
      const sources = findValueSources(ctx.run.store, value);
      return withLocations(
        sources.map((source) => ({ ...source })),
        sources.map((source) => spanLocation(source.address)),
      );
    },
  },
  /**
   * Whether `value` (case-insensitively, as a whole token) is in the parts of `event` that read
   * as an injection at `threshold` (the windows the detector scores that high; with a replacement
   * classifier, the whole text it scores that high): the injected instructions name it.
   */
  injected_value: {
    min: 2,
    max: 3,
    named: ['threshold'],
    addressed: true,
    call: (ctx, [event, value, positional], named, addresses) => {
      const threshold = numberOf(named.threshold ?? positional) ?? 0.4;
      if (typeof value !== 'string' || value.length < 2) return false;
      let found = false;
      for (const piece of textsOf(event, addresses[0])) {
        for (const [start, end] of injectedRanges(ctx, piece.text, threshold)) {
          const match = needleOf(value).exec(piece.text.slice(start, end).toLowerCase());
          if (match === null) continue;
          found = true;
          markFound(ctx, piece.address, start + match.index, start + match.index + match[0].length);
        }
      }
      return found;
    },
  },
  /**
   * Whether the injected parts of `event` (as for `injected_value`) ask for the kind of action
   * `call` performs (a payment, a message, granting access, a deletion, visiting a link, a
   * change, a booking, running a command: read from the tool's name).
   */
  requested_action: {
    min: 2,
    max: 3,
    named: ['threshold'],
    addressed: true,
    call: (ctx, [event, call, positional], named, addresses) => {
      const threshold = numberOf(named.threshold ?? positional) ?? 0.4;
      if (!(call instanceof PolicyEvent) || call.kind !== 'ToolCall') return false;
      const kind = actionKindOf(call.toolName ?? '');
      if (kind === null) return false;
      let found = false;
      for (const piece of textsOf(event, addresses[0])) {
        for (const [start, end] of injectedRanges(ctx, piece.text, threshold)) {
          const at = findActionRequest(piece.text.slice(start, end), kind);
          if (at === null) continue;
          found = true;
          markFound(ctx, piece.address, start + at[0], start + at[1]);
        }
      }
      return found;
    },
  },
  /**
   * Whether the user asked for `call`: a user message before it asks for the kind of action it
   * performs (see `requested_action`) or gave one of its argument values (its target: an id or
   * a name counts only when no address, link, account or file of the call came from a tool
   * output); true as well when the tool's name does not tell its kind.
   */
  user_requested: {
    min: 1,
    max: 1,
    call: (ctx, [call]) => {
      if (!(call instanceof PolicyEvent) || call.kind !== 'ToolCall') return true;
      return isUserRequested(ctx.run.store, call);
    },
  },
  /**
   * Whether a sentence of `event` asks for the kind of action `call` performs, in the
   * imperative or in a clause the verb opens, and names `value` (in that sentence or the next):
   * "TODO: send the file to x@y.com", "- [ ] Transfer 4,900 EUR to NL91...", "the plan changed,
   * so pay ... to DE75...". Needs no detector score: a bare request has no cue to the model.
   * With `todo=True`, only a sentence with a to-do marker ("TODO: Make a reservation for ...")
   * counts.
   */
  requested_value: {
    min: 3,
    max: 3,
    named: ['todo'],
    addressed: true,
    call: (ctx, [event, call, value], named, addresses) => {
      const todoOnly = named.todo === true;
      if (!(call instanceof PolicyEvent) || call.kind !== 'ToolCall') return false;
      if (typeof value !== 'string' || value.length < 2) return false;
      const kinds = actionKindsOf(call.toolName ?? '');
      // a tool whose name tells no kind is asked for by its own words ("add ... as a teacher")
      const words = kinds.length === 0 ? toolWordsPattern(call.toolName ?? '') : null;
      if (kinds.length === 0 && words === null) return false;
      let found = false;
      for (const piece of textsOf(event, addresses[0])) {
        for (const [start, end] of findRequestSentences(piece.text)) {
          const request = piece.text.slice(start, end);
          // a fold's break and indentation read as one space ("can u text" + break + "the code")
          const said = request.replace(/\s+/g, ' ');
          if (todoOnly && !todoMarker.test(said)) continue;
          const asked =
            words === null
              ? kinds.some((kind) => findActionRequest(said, kind) !== null)
              : words.test(said.toLowerCase());
          if (!asked) continue;
          const match = needleOf(value).exec(request.toLowerCase());
          if (match === null) continue;
          // the way to a goal the user stated ("unsubscribe me"; "To unsubscribe, reply STOP to")
          if (!todoOnly && servesUserGoal(said, userGoals(ctx, call))) continue;
          found = true;
          markFound(ctx, piece.address, start + match.index, start + match.index + match[0].length);
        }
      }
      return found;
    },
  },
  /**
   * Whether a user message before `call` hands the agent instructions found in data ("do the
   * tasks on my to-do list", "follow the instructions in the email", "do what she asks").
   */
  user_delegated: {
    min: 1,
    max: 1,
    call: (ctx, [call]) => {
      if (!(call instanceof PolicyEvent) || call.kind !== 'ToolCall') return false;
      return isUserDelegated(ctx.run.store, call);
    },
  },
  /**
   * The tool outputs after `event` whose content `call` sends out (two runs of three words, or a
   * key or token, that no user message holds) and whose own call read a source the user never
   * named (a repository or folder they did not write, a secret's path such as `~/.ssh/id_rsa`):
   * a list of `{tool, position, argument, value, secret, address}`, each located at its output.
   * Empty for calls whose tool's name says it only reads: not that a query or a URL cannot carry
   * data out, but that channel is left to the rules on values and links sent out.
   */
  leaked_reads: {
    min: 2,
    max: 2,
    call: (ctx, [event, call]) => {
      if (!(call instanceof PolicyEvent) || call.kind !== 'ToolCall') return [];
      const after = event instanceof PolicyEvent ? event.position : -1;
      const reads = findLeakedReads(ctx.run.store, call).filter((read) => read.position > after);
      return withLocations(
        reads.map((read) => ({ ...read })),
        reads.map((read) => read.address),
      );
    },
  },
  /**
   * Whether `call` writes into a destination the user named (a file by its path or its name)
   * content that its argument at `argument` (a `value_sources` element's `argument`) carries from
   * the tool output at `position` (its `position`), read from a source the user named ("my notes
   * in research/mcp.md"): the user asked to move that source's words, a quoted injection
   * included. Never a call that sends, pays, runs or shares, nor a value in the destination.
   */
  user_named_copy: {
    min: 3,
    max: 3,
    call: (ctx, [call, argument, position]) => {
      if (!(call instanceof PolicyEvent) || call.kind !== 'ToolCall') return false;
      const at = numberOf(position);
      if (typeof argument !== 'string' || at === null) return false;
      return isUserNamedCopy(ctx.run.store, call, argument, at);
    },
  },
  /** An event's position in the flattened trace (compare with `value_sources(...)[i].position`). */
  trace_position: {
    min: 1,
    max: 1,
    call: (_ctx, [value]) => (value instanceof PolicyEvent ? value.position : null),
  },
};
