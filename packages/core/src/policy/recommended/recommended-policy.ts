import { parsePolicy } from '../parse-policy.js';
import type { Policy } from '../policy.js';
import { PolicyError } from '../policy-error.js';
import type { PolicyAction, PolicyDetectors } from '../policy-types.js';

/** Options of {@link recommendedPolicy} and {@link recommendedPolicyText}. */
export interface RecommendedPolicyOptions {
  /**
   * Injection score from which a tool output taints the values it carries: a later tool call
   * using one of them is the attacker's action and is blocked.
   * @default 0.4
   */
  actionThreshold?: number;
  /**
   * Injection score from which the tool output itself is reported (rule `injected-content`).
   * Higher than `actionThreshold`: a report costs the user attention even when nothing is blocked.
   * @default 0.5
   */
  contentThreshold?: number;
  /**
   * Action of the `injected-content` rule.
   * @default 'warn'
   */
  contentAction?: PolicyAction;
  /**
   * A replacement prompt-injection classifier (a score in [0, 1]) for both rules.
   * @default the built-in offline detector, {@link promptInjectionScore}
   */
  detectors?: PolicyDetectors;
}

const actions = new Set<PolicyAction>(['block', 'warn', 'log']);

function threshold(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new PolicyError({
      code: 'POLICY_TYPE',
      message: `recommendedPolicy options.${name} is ${JSON.stringify(value)}; expected a number from 0 to 1`,
    });
  }
  return value;
}

/**
 * The text of the recommended policy, in the Invariant policy language, to read, copy and adapt.
 * Seven rules:
 *
 * 1. **`attacker-action`** (block). A tool call whose arguments carry a value — an account
 *    number, an email address, a URL, a phone number, a file name, a user name, any short
 *    string argument — that reached the conversation only through tool outputs, and that the
 *    injected part of an output the detector flags names (`injected_value(out, value)`: the
 *    run of suspicious sentences, not the whole output, so an invoice's own IBAN outside the
 *    injected note stays usable). Such a value never came from the user or the system prompt,
 *    and the text that named it was addressed to the model: the call is the attacker's.
 *    `value_sources(call)` says where each argument value first appeared (`role`, `tool`,
 *    `position`, `address`). The violation's ranges point at the injected output and at the
 *    characters where the value first appeared, so the path from injected text to call can be
 *    shown. When the user handed the agent instructions found in data ("do the tasks on the
 *    card", `user_delegated(call)`), an output scored below `contentThreshold` (a request with a
 *    target in a description, not a note to the model) does not count. Nor does a value that
 *    a write the user asked for copies from a source they named into the content of a file
 *    they named (`user_named_copy(call, source.argument, source.position)`: "write a post from
 *    my notes in research/mcp.md and save it to blog/draft.md", the notes quoting a poisoned
 *    tool description); a send, a payment or a command carrying it, the same write from a page
 *    or an email the user did not name, or a write into a file the user did not name still counts.
 * 2. **`attacker-request`** (block). A call of a kind of action (a payment, a message,
 *    granting access, a deletion, visiting a link, a change, a booking, running a command;
 *    read from the tool's name) that the injected part of a flagged output asks for
 *    (`requested_action(out, call)`) and that the user did not ask for, neither by its kind nor
 *    by giving one of its values (`user_requested(call)`): the attacker's action even when it
 *    carries no injected value ("delete all files", "cancel every booking"); the same exemption
 *    for data the user handed over. The user asked for a call when their words ask for its kind
 *    as a verb ("summarise the emails" asks for no email) and did not name another target of it
 *    (another address or account, a person whose address the data holds) or point at another
 *    source for it ("using the bank details in the vendor registry"): a second payee or
 *    recipient that the data asks for is not the user's. Nor is a target that only a request
 *    sentence of the data gives, when the user gave no target and did not identify that data
 *    (by an id, a file or person's name, a word the agent searched with, a source they pointed
 *    at) and it stands in no labelled field of its own there (a bill's `IBAN:`).
 * 3. **`attacker-bare-request`** (block). A call whose argument value reached the conversation
 *    only through tool outputs and is named in a sentence of an output that asks for that kind
 *    of action, in the imperative or in a clause the verb opens (`requested_value(out, call,
 *    value)`: "TODO: send the file to x@y.com", "- [ ] Transfer 4,900 EUR to NL91…", "the plan
 *    changed, so pay 6,400 EUR to DE75…"), when the user asked for no action of
 *    that kind and did not hand the agent instructions found in data (`user_delegated(call)`:
 *    "do the tasks on my list"). No detector score is needed: a bare request has no cue to the
 *    model, but its target came from the data and the user never asked for it.
 * 4. **`attacker-todo`** (block). As `attacker-bare-request`, for a request written as a
 *    to-do item in the data ("TODO: Make a reservation for the Riverside View Hotel from the
 *    13th…", `requested_value(out, call, value, todo=True)`), even when the user asked for that
 *    kind of action (a reservation of another hotel): the value came from the data, the user
 *    never gave it, and a to-do in data the agent only reads is not the user's unless the user
 *    handed the list over (`user_delegated(call)`). The to-do runs on over the message it
 *    quotes, up to the data's next field; a plain-text value counts from three words (a
 *    hotel's name), since one or two ("Notes") are common in any data.
 * 5. **`injected-content`** (warn by default). A tool output the detector scores at or above
 *    `contentThreshold`: the injected content itself, reported at lower severity whether or not
 *    an action follows.
 * 6. **`injected-link`** (block). An assistant message that links to a domain (a markdown
 *    image whose query carries the conversation, a "download the official version" link) that
 *    the injected part of an output flagged at `actionThreshold` named and no user or system
 *    message gave: the exfiltration or the phishing happens in the answer, with no tool call.
 * 7. **`toxic-flow`** (block). A call that writes, sends or publishes (any tool whose name
 *    does not say it only reads: a file write, a commit, a comment, a message, a web request,
 *    another tool's argument) when an output before it was flagged at `actionThreshold` and its
 *    arguments carry content (two runs of three words, or a key or token, that no user message
 *    holds) of a tool output read after the flagged one from a source the user never named
 *    (`leaked_reads(out, call)`): a repository, folder or channel argument the user's
 *    messages do not hold (a page's URL is no private source), a file or path in no container the user named, or a secret's path
 *    (an SSH key, `.env`, `mcp.json`, cloud credentials, `.netrc`, a `.pem`) whose file the user
 *    did not name. Invariant Labs' GitHub MCP toxic flow (a public issue gets a private
 *    repository's file into the public README, with the user's own token) and MCP tool
 *    poisoning (a tool's description asks for `~/.ssh/id_rsa` as an argument). The user's own
 *    sources are theirs to move: copying private notes they named into their public
 *    repository, summarising the issues of the repository they named, rotating the key in the
 *    `.env` they named.
 *
 * Not covered: how private the data is, beyond which sources the user named. Reading a secret
 * or a private resource is no kind of action (blocked only when a flagged output named the
 * path; `toxic-flow` blocks the call that sends it out). `toxic-flow` needs a flagged output
 * first, follows content copied as written (a paraphrase or an encoding escapes it), knows a
 * source by its read's argument names (`repo`, `path`, `folder`; a read with no such argument,
 * a page fetched by its URL among them, is never an unnamed source), and does not check tools
 * named as reads (`get_webpage`, `search_*`), though a query or a URL can carry data out, so data carried out in a link's query is left to rules 1 and 6.
 *
 * Why values and requests, not tools: real injections ask for ordinary actions (send money,
 * forward an email, invite a user, visit a link) that the user's own tasks also use; what gives
 * them away is that their target, or the request itself, comes from the injected data.
 * Requiring both the detector and the data flow keeps benign work untouched when the detector
 * errs on a harmless text.
 *
 * @param options - thresholds and the content rule's action
 * @returns the policy text
 * @example
 * ```ts
 * import { parsePolicy, recommendedPolicyText } from '@tracewarden/core';
 * const text = recommendedPolicyText({ actionThreshold: 0.5 });
 * const policy = parsePolicy(`${text}\nraise "no deletes" if:\n    (call: ToolCall)\n    call is tool:delete_file\n`);
 * ```
 */
export function recommendedPolicyText(options: RecommendedPolicyOptions = {}): string {
  const action = threshold('actionThreshold', options.actionThreshold, 0.4);
  const content = threshold('contentThreshold', options.contentThreshold, 0.5);
  const contentAction = options.contentAction ?? 'warn';
  if (!actions.has(contentAction)) {
    throw new PolicyError({
      code: 'POLICY_TYPE',
      message: `recommendedPolicy options.contentAction is ${JSON.stringify(contentAction)}; expected block, warn or log`,
    });
  }
  return `from invariant.detectors import prompt_injection

# Rule 1. The attacker's action: a call that uses a value which reached the conversation only
# through tool outputs (never given by the user or the system prompt) and which the injected
# part of a flagged output names. A value the user gave, or one the output carries outside the
# injected part (a bill's own IBAN), does not count; nor, when the user handed the agent
# instructions in data ("do the tasks on the card"), an output below the content threshold; nor
# a value the user asked to copy: from a source they named ("my notes in research/mcp.md") into
# the content of a file they named (a post about tool poisoning quoting one).
# name: attacker-action
# action: block
raise "tool call uses a value that a prompt-injected tool output asked for, not the user" if:
    (out: ToolOutput) -> (call: ToolCall)
    prompt_injection(out, threshold=${action})
    prompt_injection(out, threshold=${content}) or not user_delegated(call)
    (source: dict) in value_sources(call)
    source.role == "tool"
    injected_value(out, source.value, threshold=${action})
    not user_named_copy(call, source.argument, source.position)

# Rule 2. The attacker's request: a call of a kind of action (a payment, a message, granting
# access, a deletion, visiting a link, a change, a booking, running a command) that the injected
# part of a flagged output asks for and that no user message asked for, even when the call
# carries no value from the injection ("delete all files"). A call whose target the user gave
# (a recipient the user named) is the user's; one whose target the user did not give, when the
# user named another target or pointed at another source for it, is not (a second payee); nor
# is one only a request in data the user did not identify gave ("book the cheapest flight", and a
# fare note asks to add an event with its link).
# name: attacker-request
# action: block
raise "tool call performs an action that a prompt-injected tool output asked for and the user did not" if:
    (out: ToolOutput) -> (call: ToolCall)
    prompt_injection(out, threshold=${action})
    prompt_injection(out, threshold=${content}) or not user_delegated(call)
    requested_action(out, call, threshold=${action})
    not user_requested(call)

# Rule 3. The attacker's bare request: a call that uses a value which reached the conversation
# only through tool outputs, where a sentence asks for that kind of action, in the imperative or
# in a clause the verb opens, and names the value ("TODO: send the file to x@y.com", "the plan
# changed, so pay 6,400 EUR to DE75..."), when the user asked for no action of that kind (an id
# the user gave does not make the call the user's when its target came from the data) and did
# not hand the agent instructions found in data ("do the tasks on my list").
# No detector score is needed: such a request has no cue to the model, but the user never
# asked for it and its target came from the data.
# name: attacker-bare-request
# action: block
raise "tool call performs an action that a tool output requested with a value the user never gave" if:
    (out: ToolOutput) -> (call: ToolCall)
    (source: dict) in value_sources(call)
    source.role == "tool"
    requested_value(out, call, source.value)
    not user_requested(call)
    not user_delegated(call)

# Rule 4. The attacker's to-do: as rule 3, for a request written as a to-do item addressed to
# whoever reads the data ("TODO: Make a reservation for the Riverside View Hotel from the 13th
# ..."), even when the user asked for that kind of action (a reservation of another hotel): the
# value came from the data, the user never gave it, and a to-do in data the agent merely reads
# is not the user's unless the user handed it over ("do the tasks on my list"). A value of
# plain text counts from three words (a hotel's name, a title): one or two ("Notes") are too
# common in any data to tell whose they are.
# name: attacker-todo
# action: block
raise "tool call performs an action that a to-do in a tool output requested with a value the user never gave" if:
    (out: ToolOutput) -> (call: ToolCall)
    (source: dict) in value_sources(call)
    source.role == "tool"
    source.kind != "text" or match("\\S+\\s+\\S+\\s+\\S", source.value)
    requested_value(out, call, source.value, todo=True)
    not user_delegated(call)

# Rule 5. The injected content: a tool output that reads as instructions to the model.
# name: injected-content
# action: ${contentAction}
raise "tool output contains a prompt injection" if:
    (out: ToolOutput)
    prompt_injection(out, threshold=${content})

# Rule 6. The injected link: an assistant message that shows a link (a markdown image that
# the interface fetches at once, with the conversation in its query; a "download" link) to a
# domain that the injected part of a flagged output named and that no user or system message
# gave: the answer carries the attacker's link to the user, or the user's data to the attacker.
# name: injected-link
# action: block
raise "assistant message links to a domain that only the injected part of a tool output gave" if:
    (out: ToolOutput) -> (msg: Message)
    msg.role == "assistant"
    prompt_injection(out, threshold=${action})
    (domain: str) in domains(msg)
    injected_value(out, domain, threshold=${action})
    not exists:
        (given: Message)
        given.role in ["user", "system"]
        domain in given.content

# Rule 7. The toxic flow: a call that writes, sends or publishes (a file, a commit, a comment, a
# message, a tool's argument) content the agent read, after a flagged output, from a source the
# user never named: a repository or folder the user did not write (a page's URL is public), or a secret's path
# (an SSH key, .env, mcp.json, a credentials file) the user did not name. A public issue asks
# for the owner's private repositories in its README; a tool's description asks for
# ~/.ssh/id_rsa as an argument. Content the user's own sources hold is theirs to move.
# name: toxic-flow
# action: block
raise "tool call sends out data read, after a prompt-injected tool output, from a source the user never named" if:
    (out: ToolOutput) -> (call: ToolCall)
    prompt_injection(out, threshold=${action})
    (read: dict) in leaked_reads(out, call)
`;
}

/**
 * A curated security policy against indirect prompt injection, usable wherever a `Policy` is
 * (`checkToolCall`, monitors, `wrapOpenAI` and the AI SDK and LangChain adapters' `policy`
 * option, `tracewarden check --recommended`). It blocks the attacker's action before it runs and
 * reports the injected content at lower severity; see {@link recommendedPolicyText} for the rules.
 * Offline and deterministic; under a millisecond per proposed call on a 100-message trace
 * whose outputs were seen before (a rule's conditions on the call run for the proposal only),
 * a few more when one of them is a new 30 KB output.
 *
 * @param options - thresholds, the content rule's action, a replacement classifier
 * @returns the compiled {@link Policy}
 * @throws PolicyError `POLICY_TYPE` when a threshold is not a number from 0 to 1
 * @example
 * ```ts
 * import { recommendedPolicy } from '@tracewarden/core';
 * const policy = recommendedPolicy();
 * const verdict = policy.checkToolCall(trace, {
 *   name: 'send_money',
 *   arguments: { recipient: 'US133000000121212121212', amount: 100 },
 * });
 * if (!verdict.allowed) console.warn(verdict.violations[0]?.message);
 * ```
 */
export function recommendedPolicy(options: RecommendedPolicyOptions = {}): Policy {
  return parsePolicy(recommendedPolicyText(options), {
    ...(options.detectors === undefined ? {} : { detectors: options.detectors }),
  });
}
