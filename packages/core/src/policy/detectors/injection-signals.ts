/**
 * The signals of the offline prompt-injection detector (decision 050): each a log-odds weight
 * and the patterns that show it, tested on a normalised sentence. Signals are what holds across
 * attack styles (instructions addressed to the model, claims to speak as the user or system,
 * task hijacking, template markers, secrecy, urgency, imperative requests for ordinary
 * actions), with their wording in the languages attackers use most.
 * @internal
 */

export interface Signal {
  name: string;
  weight: number;
  /** Tested on the normalised sentence. */
  pattern: RegExp;
}

// Each weight is a log-odds contribution; the bias keeps any one weak signal far below 0.5.
// Set on the dev split of the corpus (decision 050), then frozen.
export const BIAS = -4;

/** A pattern that also matches each of `alternatives` (their wording in other languages). */
function widen(pattern: RegExp, ...alternatives: string[]): RegExp {
  return new RegExp([pattern.source, ...alternatives].join('|'), pattern.flags);
}

const MODEL_NAMES = String.raw`(?:ai|a\.i\.|assistant|ai assistant|ai agent|agent|coding agent|coding assistant|language model|llm|model|chatbot|bot|gpt[\w.-]*|chatgpt|openai|claude|claude code|gemini|llama|copilot|mistral|qwen|deepseek|cursor|codex|devin|aider|windsurf|cline)`;

const OBJECTS =
  '(?:instructions?|instrucions?|prompts?|rules|directions|guidelines|directives|commands|orders|context|tasks?|guidance|constraints)';

const ACTION_VERBS =
  '(?:send|transfer|wire|pay|forward|e-?mail|mail|invite|add|grant|share|delete|remove|erase|move|visit|open|navigate|go to|click|download|upload|post|publish|change|update|reset|modify|set up|book|reserve|make a (?:reservation|booking|payment|transfer)|create|schedule|sell|buy|purchase|unlock|concatenate|retrieve|fetch|tell|say|give|provide|disclose|reveal|export|initiate|execute|run|install|get|refund|issue|cancel|approve|disable|enable|sign in|log in|settle|assign|promote|ban|kick|approve all|grant access|switch|turn (?:on|off)|toggle|transmit)';

const IMPERATIVE_LEAD = String.raw`(?:^|[:;]\s*|^\W{0,6}(?:ai |the )?(?:assistant|agent|chatbot|bot)\s*(?:,|\s[-–—])\s*(?:please\s+)?|\b(?:please|kindly|pls)\s+(?:also\s+|just\s+|now\s+|quickly\s+)?|\byou (?:must|should|need to|have to|are required to|will need to)\s+(?:also\s+|now\s+|first\s+|then\s+|immediately\s+)?|\b(?:asked|requested|wants|wanted|would like|needs?|expects?) (?:that )?you (?:to )?(?:also )?|\bmake sure (?:to|you)\s+|\bgo ahead and\s+|\bbe sure to\s+|\bremember to\s+|\bdon't forget to\s+|\bi (?:want|need) you to\s+|\b(?:can|could|would) you (?:please\s+|quickly\s+|just\s+|also\s+){0,2}|\bif (?:(?:the |an? |any )?(?:ai |virtual |automated )?|(?:our |my )(?:ai |virtual |automated ))(?:assistant|bot|ai|model|you) (?:could|can|would|might) (?:please\s+|quickly\s+|just\s+|also\s+){0,2}|\bthen,?\s+|\bdo\s+|\[[ x]?\]\s*|->\s*|\bnow,?\s+|\bto (?:resolve|fix|continue|proceed|unlock|recover|restore|complete|finish)(?: this| it)?,?\s+|\bbefore [a-z]+ing\b[^,.;:\n]{0,40},\s+|\b(?:with immediate effect|effective (?:immediately|today|now)|from now on|as of (?:today|now)|going forward|starting (?:today|now)|for (?:security|compliance|audit) reasons),?\s+)`;

// A verb of the override negated ("please don't forget the previous instructions about the
// delivery"): a reminder, not an override. Looked for behind the verb once it matched.
const NOT_NEGATED = String.raw`(?<!\b(?:don['’]t|dont|do not|never|not|didn['’]t|doesn['’]t|won['’]t|shouldn['’]t|mustn['’]t|can['’]t|cannot)\s+(?:\w+\s+)?(?:ignore|disregard|forget|override|bypass|skip|discard|drop))`;
// The writer taking back their own earlier words ("please ignore my previous instructions about
// the cake"): a correction between people, unless the sentence also speaks to the model
const MODEL_MENTION = String.raw`\b(?:assistants?|ai|agents?|models?|llms?|bots?|chatbots?|gpt[\w.-]*|claude)\b`;
const NOT_OWN_EARLIER = String.raw`(?:(?<=${MODEL_MENTION}[^\n]{0,120})|(?!\s+(?:my|our)\s+(?:previous|prior|earlier|last|former|original|other)\s+(?:instructions?|e-?mails?|messages?|requests?|notes?|directions)\b(?![^\n]{0,120}${MODEL_MENTION})))`;

export const signals: Signal[] = [
  {
    // "ignore your previous instructions", tolerant of words between; not inside a quotation
    // of what a text said ('a README that said "IMPORTANT: ignore previous …"'), though a quote
    // that opens a JSON or YAML value (`"body": "Ignore …"`, `body: 'Ignore …'`) is no quotation:
    // tool outputs are often JSON; nor asked
    // about ("Ignore previous instructions? Our agents did not"); the quotation is looked for
    // behind the verb once it matched (a look-behind at the start would run at every position)
    name: 'override',
    weight: 6.2,
    pattern: new RegExp(
      String.raw`(?<!(?<![:=]\s{0,3})["'“‘])\b(?:ignore|disregard|forget|override|bypass|skip|discard|drop)\b(?<!\b(?:said|says|say|saying|like|as|wrote|writes|reads|read|reading|text|phrase|line|message)\s*[:,]?\s*\\?["“][^"”\n]{0,40}\b(?:ignore|disregard|forget|override|bypass|skip|discard|drop))${NOT_NEGATED}${NOT_OWN_EARLIER}[^.\n]{0,50}\b(?:previous|prior|above|earlier|all|any|your|original|existing|preceding|former|system|initial)\b[^.\n]{0,40}\b${OBJECTS}(?!\w*\s*\?)|\b(?:previous|prior|original|current|earlier) (?:task|instructions?|request) (?:is|are|has been|have been) (?:cancell?ed|void|obsolete|overridden|replaced)|\bnew (?:task|instructions?|objective|goal)\s*(?:is|are)?\s*:`,
    ),
  },
  {
    // the same phrase quoted, as texts about prompt injection cite it
    name: 'override-mentioned',
    weight: 1.2,
    pattern: new RegExp(
      String.raw`["'“‘](?:ignore|disregard|forget)\b[^.\n]{0,50}\b(?:previous|prior|above|all|your)\b[^.\n]{0,30}\b${OBJECTS}`,
    ),
  },
  {
    // role play and jailbreak vocabulary
    name: 'role-change',
    weight: 4.6,
    pattern:
      /\byou are now\b|\bfrom now on,? you\b|\bact as (?:an? )?(?:unrestricted|jailbroken|dan)\b|\bdeveloper mode\b|\bjailbreak|\bpretend (?:to be|you are) (?:an? )?(?:unrestricted|different)/,
  },
  {
    name: 'reveal-prompt',
    weight: 4.2,
    pattern:
      /\b(?:reveal|print|show|repeat|output|leak)\b[^.\n]{0,30}\b(?:system prompt|hidden instructions|your instructions|initial prompt)\b/,
  },
  {
    // chat-template turns, role tags and delimiter games inside data; a bracketed role tag only
    // before words to the model or an imperative ("[system] Build 4471 finished" is a log line);
    // the wrappers tool-poisoning and injection write-ups use (`<IMPORTANT>`, `<critical>`), not
    // tags data has of its own (a sitemap's `<priority>`, a catalogue's `<model>`)
    name: 'template-marker',
    weight: 5.1,
    pattern: new RegExp(
      String.raw`<\|(?:im_start|im_end|eot_id|start_header_id|end_header_id|system|user|assistant|end|begin_of_text)\|>|<(?:start|end)_of_turn>|\[\/?inst\]|<<\s*sys\s*>>|<\s*\/?\s*(?:system|instructions?|information|hidden_instruction|system_update|admin|prompt|im_start|important|critical|urgent|assistant|llm|tool_(?:note|usage|instructions?))\b[^>]{0,40}>|###\s*\(?\s*(?:system|instruction|admin)|^\W{0,3}\[(?:user|human)\]\s*:|\[(?:system|admin|developer|system message|system override)\](?=[^\n]*\b(?:you|your|ignore|disregard|must|please|now|immediately|instructions?|task|assistants?|agents?|models?|ai)\b|\s*${ACTION_VERBS}\b)|%%%|\bend of (?:untrusted |the )?(?:input|text|document|data|context|prompt)\b|<\|[a-z_]+\|>|<｜[^｜]{1,20}｜>|start_of_turn|\b(?:system|admin|security) override\b|"(?:tool_calls|pending_tool_calls|function_call)\b`,
    ),
  },
  {
    // addressed to the model: "to you, GPT-4", "Note to the AI agent:", "Assistant, ..."
    // a field or key for the model ("ai_instructions: ...", "note_for_agent = ...")
    name: 'address-model',
    weight: 3.2,
    pattern: new RegExp(
      String.raw`\bto you,? (?:the )?${MODEL_NAMES}\b|\b(?:dear|hey|hi|hello|attention|note to|message (?:to|for)|instructions? (?:to|for)|this is for)\s*,?\s*(?:the |any |all |our |my )?${MODEL_NAMES}s?\b|^\W{0,6}(?:ai |the )?(?:assistant|agent|model|chatbot)s?\s*(?:[,:]|\s[-–—]\s)|^\W{0,6}(?:body|message|description|comment|notes?|content|text|details|re|subject)\s*:\s*\W{0,3}(?:ai |the )?(?:assistant|agent|model|chatbot)s?\s*[,:]\s*(?:please|kindly|you|ignore|also|now|immediately|make sure|remember|do not|don't)\b|\bif you are (?:an? |the )?(?:ai|language model|llm|assistant|agent|bot)\b|\b(?:any|all) (?:ai|llm|autonomous) (?:agents?|assistants?|models?)\b|\bas an ai (?:assistant|language model|model)\b|\bthe (?:ai|llm) (?:reading|processing|summari[sz]ing) this\b|\bassistant reading this\b|(?:^|<!--)\W{0,6}(?:for|to|attention|note (?:for|to))\s+(?:(?:all|any|the|every)\s+)?(?:(?:ai|llm|automated|autonomous)[ -])(?:summari[sz]ers?|assistants?|agents?|models?|bots?|readers?|crawlers?|scrapers?|tools?|systems?)\s*[:,]|\b(?:ai|llm|assistant|agent|model|bot|copilot|gpt)[_ -]?(?:instructions?|directives?|prompts?|notes?|tasks?|commands?|todo)\s*["']?\s*[:=]|\b(?:instructions?|notes?|directives?|prompt|message)[_ -](?:for|to)[_ -](?:the[_ -])?(?:ai|llm|assistant|agent|model|bot)s?\s*["']?\s*[:=]`,
      'm',
    ),
  },
  {
    // obligations put on the agent in the third person: "all AI agents must", "the agent is required to"
    name: 'agent-obligation',
    weight: 2.2,
    // (a prohibition, "the assistant must never pay twice", is what the operator's own docs say)
    pattern:
      /\b(?:the |all |any )?(?:ai )?(?:agents?|assistants?|llms?|language models?|ai models?|bots?|chatbots?|summari[sz]ers?|copilots?)\b[^.\n]{0,40}?\b(?:is |are )?(?:must|should|required to|needs? to|have to|has to|shall)\b(?! (?:not|never)\b)/,
  },
  {
    // ... and with the action it asks for: a modal and an action verb aimed at the agent in the
    // third person ("travel assistants must email ...", "the assistant has to send ...",
    // "AI summarizers should open ..."); a human's role ("the assistant manager", "dental
    // assistants") is not the agent. With the obligation, enough to taint the values it names
    // (0.45), not to report it alone: a README says "the release bot should post the changelog"
    name: 'agent-obligation-action',
    weight: 1.6,
    pattern: new RegExp(
      String.raw`\b(?:[a-z]+[ -])?(?<!\b(?:teaching|dental|medical|nursing|research|lab|legal|sales|store|shop|executive|administrative|personal|office|physician|program|project|support|service|insurance|estate|booking|ticket|gate|flight|claims|field|care|security|human|real|secret|special)[ -])(?:assistants?|ai|agents?|bots?|chatbots?|llms?|models?|summari[sz]ers?|copilots?|crawlers?)\b(?! (?:manager|director|professor|coach|editor|teacher|team)\b)\s+(?:(?:also|now|then|first|always|immediately)\s+)?(?:must|has to|have to|should|needs? to|is required to|are required to|shall|is expected to|are expected to)\s+(?:(?:also|now|then|first|always|immediately|please)\s+)?${ACTION_VERBS}\b`,
    ),
  },
  {
    // claims to speak as the user, the system, the developer or an administrator
    name: 'claim-role',
    weight: 2.6,
    pattern:
      /\b(?:this is|it's|it is) (?:me|an? (?:important |urgent )?message from me|the user|your user|the developer|the system|your developer|the admin(?:istrator)?)\b|\bmessage from (?:me|the user|your user|the system|the developer|the admin(?:istrator)?|the (?:site|account) owner|the security team|it)\b|\b(?:system|developer|admin|administrator) (?:message|note|notice|update|instruction|override)s?\b|\b(?:notice|instructions?|update|request|message|note) from (?:the )?(?:it |site |account )?(?:administrator|admin|owner|developer|system|security team)\b|\bi am (?:the user|your user|your developer|your creator|the system|the admin)\b|\bon behalf of the user\b|\b(?:the user|account owner|site owner) (?:has )?(?:approved|authori[sz]ed|requested|wants you)\b|\bapproved by the (?:user|account owner|owner|administrator)\b|\bfrom: (?:the )?(?:user|account owner|site owner|owner|administrator|admin|developers?|system)\b|\bi forgot to (?:mention|tell you|add|ask)\b|\bupdate to my (?:request|task|instructions)\b|\badditional request has been made by the user\b|\b(?:verified|trusted) (?:safe|system|platform|content|provider|metadata)\b|\bprovenance\b|\bsigned,? (?:the user|emma johnson)\b|\bthe (?:person|user|human|one|people) (?:that |who |whom )?you(?:'re| are)? (?:assist|assisting|work for|working for|help|helping|serve|serving|act for|acting for)\b|\b(?:per|following|as per) the (?:user|owner|account owner)'s (?:standing |earlier |prior |previous |explicit )?(?:instructions?|requests?|wish(?:es)?|orders?|preferences?)\b|\b(?:forwarded|relayed|passed on) (?:from|by|on behalf of) (?:the user|your user|your (?:boss|owner|principal)|the account owner)\b/,
  },
  {
    // task hijacking: another task first, instead of, or on top of the user's
    name: 'task-hijack',
    weight: 3.0,
    pattern:
      /\bbefore (?:you (?:can )?(?:solve|continue|proceed|answer|reply|respond|finish|complete|summari[sz]e|do anything|help|go on)|(?:solving|answering|completing|continuing|proceeding with) )|\b(?:do|complete|perform|carry out) the following (?:first|step|task|instruction)|\bdo (?:this|that) first\b|\byou (?:must|should|need to|have to) first\b|\b(?:first|firstly),? (?:you (?:must|should|need to|have to)|please)\b|\bthe task (?:that )?i gave you\b|\b(?:instead|rather),? (?:do|please|you (?:should|must))\b|\bdo\b[^\n]{3,300}\binstead\b|\bin addition to (?:your|the|my) (?:task|request)\b|\bwhile you(?:'re| are) at it\b|\balso carry out\b|\balong with the existing (?:user )?instruction|\b(?:your|the) (?:new|real|actual|updated|next|true) (?:task|instructions?|goal|objective|priority)\b|\b(?:new|updated) instructions\b|\bcomplete (?:the following|this|these|one more) (?:steps?|tasks?|actions?)\b|\bbefore (?:closing|finishing|resolving|answering|replying|responding|summari[sz]ing|you close|you finish|you reply|you respond)\b|\bmust be completed automatically\b|\bcarry out\s*:|\b(?:strictly )?(?:adhere to|obey|comply with) (?:the following|these|this|my)\b|\bfollow (?:these|the following|this one|my new)\b|\bproceed with this\b|\btake care of (?:that|this) first\b/,
  },
  {
    // ... and the way back to the user's task once the attacker's is done
    name: 'task-return',
    weight: 2.0,
    pattern:
      /\bafter you do (?:that|this)\b|\bonce you(?:'ve| have) done (?:that|this)\b|\b(?:then )?(?:go|come|return) back to (?:the |your |what )?(?:original|previous|initial|first|i asked)|\bthen continue with\b|\b(?:then )?(?:retry|resume|redo) (?:the |your )?(?:original|previous|initial|user's) (?:request|task)\b|\bthen,? you can (?:solve|continue|proceed|answer|finish|complete)\b|\b(?:solve|continue with) the task (?:that )?i gave you\b|\bthen (?:retry|resume|repeat|redo|reload) (?:the |your |this )?(?:request|task|operation|call|query)\b|\bthen (?:answer|reply to|get back to|continue with) my (?:question|request|task|message)\b/,
  },
  {
    // keep the user out of the loop
    name: 'secrecy',
    weight: 2.1,
    pattern:
      /\bwithout (?:asking|telling|informing|confirming|confirmation|notifying|checking with|bothering)\b|\b(?:do not|don't|dont|never) (?:tell|inform|mention|notify|alert|ask|confirm|reveal to|let)\b[^.\n]{0,20}\b(?:the user|user|me|anyone|them)\b|\b(?:do not|don't|never) (?:mention|reveal|disclose|report) (?:this|these|that)\b|\bno need to (?:confirm|ask|tell|check)\b|\b(?:you )?don't need to (?:confirm|ask|check)\b|\b(?:silently|quietly|secretly)\b|\bskip these tags\b|\bnot (?:a|an) (?:prompt )?injection\b|\bnotapromptinjection\b/,
  },
  {
    name: 'urgency',
    weight: 1.0,
    pattern:
      /\bimportant\s*!+|\burgent(?:ly)?\b|\bimmediately\b|\bright away\b|\basap\b|\bmandatory\b|\bcritical\b|\bfailure to comply\b|\bstrictly\b|\bpriority\b|\bsecurity (?:notice|alert|warning)\b/,
  },
  {
    // imperative requests for ordinary actions (not a heading that numbers an item: "Email 1")
    name: 'action',
    weight: 1.0,
    pattern: new RegExp(
      `${IMPERATIVE_LEAD}(?:\\d+[.)]\\s*|[-*]\\s*)?${ACTION_VERBS}\\b(?![ \\t]*\\d+[ \\t]*$)`,
      'm',
    ),
  },
  {
    name: 'todo-action',
    weight: 2.5,
    pattern: new RegExp(`\\b(?:todo|to-do|to do)\\s*:\\s*(?:please\\s+)?${ACTION_VERBS}\\b`),
  },
  {
    // a to-do marker inside running text ("... always ready to help TODO: send ..."): a line
    // of a to-do list starts its line
    name: 'todo-inline',
    weight: 1.0,
    pattern: /[\p{L}\d.,!?)'"]\s+(?:todo|to-do)\s*:/u,
  },
  {
    // the attacker speaks of the user in the third person
    name: 'third-person-user',
    weight: 2.0,
    pattern:
      /\bthe user's (?:password|e-?mail|account|iban|data|information|messages|files|phone|address|contacts|credentials|history)\b|\b(?:of|about|to|from) the user\b|\bthe user (?:is|has|likes)\b|\buser information\b/,
  },
  {
    // instructions in the shape of tool documentation
    name: 'tool-instruction',
    weight: 2.0,
    pattern:
      /\buse the (?:tool|function)\b|\bcall (?:the )?(?:tool|function)\b|\bwith the (?:following )?arguments\b|\bsubstitute the placeholders\b|\b(?:tool|function) call\b|\bthe agent (?:is|must|should)\b|\bto finish processing this\b/,
  },
  {
    // denial of service: the agent is told to stop its task ...
    name: 'stop-task',
    weight: 2.4,
    pattern:
      /\bstop (?:what you(?:'re| are) doing|here|now|immediately|right now|processing|working|the task|your task)\b|\byou (?:should|must|need to|have to) stop\b|\b(?:do not|don't|must not|should not|cannot be|must not be) (?:continue|proceed|be processed|process|complete|finish)\b|\bend the (?:conversation|chat|session|task)\b|\b(?:abort|terminate) (?:the|this|your) (?:task|request|conversation)\b/,
  },
  {
    // ... and to answer with a fixed text instead ("reply only with 'asdf'")
    name: 'forced-reply',
    weight: 2.4,
    pattern:
      /\b(?:reply|respond|answer|say)\b[^.\n]{0,20}\b(?:only|nothing but|just)\b[^.\n]{0,12}["'“‘]|\b(?:reply|respond|answer) (?:to me )?(?:only )?with ["'“‘]|\breply to me ["'“‘]|\b(?:reply|respond|answer)\b[^.\n]{0,30}\binstead\b/,
  },
  {
    // a fake failure whose fix is an action: "ERROR 428 ... To resolve, transfer ..."
    name: 'fake-error',
    weight: 2.0,
    pattern:
      /\b(?:error|exception|status)\s*[:#]?\s*[45]\d\d\b|\b[45]\d\d (?:precondition|forbidden|unauthori[sz]ed|payment required|locked)\b|\b(?:error|exception|failed|failure|denied|forbidden|precondition|locked|blocked)\b[^\n]{0,120}\bto (?:resolve|fix|continue|proceed|unlock|recover|restore|view|display|access|see) (?:this|it|the (?:record|content|page|document|data|full text))?\b/,
  },
  {
    // the reader of the data spoken to: "whoever reads this", "while you're reading this"
    name: 'address-reader',
    weight: 2.0,
    pattern:
      /\bwhoever (?:reads|is reading|processes|sees|handles) this\b|\bwhile you(?:'re| are) (?:reading|processing|looking at|handling) this\b|\b(?:if|when) you(?:'re| are) (?:reading|processing|summari[sz]ing|parsing) this\b|\bto (?:whoever|anyone|the one) (?:reading|processing) this\b|\b(?:when|while|if|before|after) (?:summari[sz]ing|reading|processing|parsing|answering (?:about|from)) this (?:document|page|text|file|e-?mail|message|content|article|report|post|site)\b|\b(?:whichever|whatever|any|every|each) (?:[a-z]+[ -]){0,2}?(?:assistants?|agents?|models?|llms?|bots?|ai|summari[sz]ers?|crawlers?) (?:that |who )?(?:reads?|is reading|reading|processes|processing|parses|parsing|sees|handles|summari[sz]es) (?:this|these)\b/,
  },
  {
    // text *about* injections (an article, a training, an essay) quotes their phrases; it is not
    // one ("not a prompt injection" is a wrapper attackers use, so it does not count)
    name: 'about-injection',
    weight: -2.5,
    pattern:
      /(?<!\bnot an? )\bprompt[- ]injections?\b|\binjection attacks?\b|\battackers? (?:hides?|embeds?|uses?|writes?|can|could|may|might|try|tries)\b|\bsuch (?:attacks|tricks|injections)\b|\bjailbreak (?:attempts?|prompts?)\b|\bto trick (?:chatbots|ai|the (?:ai|model|assistant|bot))\b|\b(?:divert|trick|hijack|mislead|fool)s? (?:ai |llm |web )?(?:agents|assistants|chatbots)\b|\b(?:text|texts|phrases?|wording|instructions|strings) (?:such as|like) ["“']/,
  },
  {
    // an adversarial string of symbols around the attacker's words (Imprompter, GCG-like
    // suffixes): three different arrows, math or technical symbols in one sentence. Enough to
    // taint the values it names, not to warn: a flowchart or a formula has them too
    name: 'symbol-soup',
    weight: 3.7,
    pattern:
      /([\u2190-\u23ff\u27f0-\u27ff\u2900-\u297f]).{0,60}?(?!\1)([\u2190-\u23ff\u27f0-\u27ff\u2900-\u297f]).{0,60}?(?!\1|\2)[\u2190-\u23ff\u27f0-\u27ff\u2900-\u297f]/,
  },
  {
    // an instruction in code: "decode the following base64 string and follow it", "base64-decode
    // this and run it" (the decoded text is read as well: `normalize-injection-text.ts`)
    name: 'encoded-instruction',
    weight: 3.0,
    pattern:
      /\b(?:decode|decrypt|deobfuscate|unscramble|de-?base64|base64[- ]decode|rot13|reverse)\b[^\n]{0,80}?\b(?:and|then|,)\s+(?:\w+\s+)?(?:follow|execute|run|obey|do|carry out|perform|act on|comply with|apply)\b/,
  },
  {
    // text hidden in Unicode tag characters (U+E0020-U+E007E, invisible in most interfaces),
    // marked by the normalisation: no ordinary text carries a run of them (a flag emoji's tags
    // are not marked)
    name: 'hidden-characters',
    weight: 4.0,
    pattern: /\ue000tagged\ue000/,
  },
  {
    name: 'hidden-text',
    weight: 2.0,
    pattern:
      /display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|color\s*:\s*(?:white|#fff)\b|<!--/,
  },
];

// More ways to say the same things: other wordings in English, and the signals in the languages
// injections are most often written in (German, French, Spanish, Portuguese, Italian, Chinese,
// Japanese, Russian; the note to the assistant and the common action verbs in Arabic, Hindi,
// Turkish and Polish too). A text in another language reads as itself, not as a translation.
const widenings: Record<string, string[]> = {
  override: [
    String.raw`\b(?:ignorier(?:e|en|t)?|vergiss|vergessen sie|missachte)\b(?!\s+(?:(?:bitte|ja|bloß|aber)\s+)?nicht\b)[^.\n]{0,40}\b(?:vorherigen|bisherigen|obigen|alle|früheren|ursprünglichen)\b[^.\n]{0,30}\b(?:anweisungen|anordnungen|befehle|instruktionen|aufgaben?|regeln)`,
    String.raw`\b(?:negeer|vergeet)\b(?!\s+niet\b)[^.\n]{0,40}\b(?:vorige|eerdere|alle|bovenstaande)\b[^.\n]{0,30}\b(?:instructies|opdrachten|regels)`,
    String.raw`\b(?:ignore[rz]?|oublie[rz]?)\b(?<!\bn['’]\s?(?:ignore[rz]?|oublie[rz]?))(?<!\bne pas (?:ignorer|oublier))[^.\n]{0,40}\b(?:précédentes|antérieures|toutes|vos|tes|les)\b[^.\n]{0,30}\b(?:instructions|consignes|directives|règles)`,
    String.raw`\b(?:ignora[rd]?|ignore|olvida|esquece|esque[çc]a|esque[çc]am|desconsidere|desconsidera|dimentica)\b(?<!\b(?:no|não|nao|non|nunca|mai)\s+(?:\w+\s+)?(?:ignora[rd]?|ignore|olvida|esquece|esque[çc]a|esque[çc]am|desconsidere|desconsidera|dimentica))[^.\n]{0,40}\b(?:anteriores|previas|todas|precedenti|tutte|las|as|le)\b[^.\n]{0,30}\b(?:instrucciones|instruções|instruzioni|indicaciones|órdenes|istruzioni|reglas|regras)`,
    String.raw`(?:忽略|无视|忘记|忽视|不要理会)[^。\n]{0,20}(?:之前|以前|先前|所有|上述|上面)[^。\n]{0,10}(?:指令|指示|说明|命令|规则)`,
    `(?:以前|前|これまで|上記)の(?:指示|命令|ルール)を(?:無視|忘れ)`,
    String.raw`(?:игнорируй|игнорируйте|забудь|забудьте)[^.\n]{0,40}(?:предыдущие|все|прежние)[^.\n]{0,20}(?:инструкции|указания|команды)`,
    // Arabic "تجاهل جميع التعليمات السابقة" (not "لا تتجاهل", don't ignore), Korean "이전의 모든 지시를
    // 무시하고" (not "무시하지 마세요"), Hindi "पिछले सभी निर्देशों को अनदेखा करें" (not "मत भूलना")
    String.raw`(?<![\u0600-\u06ff])(?<!لا )(?:تجاهل|تجاهلي|تجاهلوا|انس|انسَ|إنس)(?![\u0600-\u06ff])[^.\n]{0,40}(?:التعليمات|الأوامر|الإرشادات|التوجيهات|تعليمات)`,
    String.raw`(?:이전|앞의|위의|모든|기존|지금까지)[^.\n]{0,20}(?:지시|지침|명령|규칙|프롬프트)[^.\n]{0,10}(?:무시|잊어|잊으)(?!하지\s?마|하지\s?말)`,
    String.raw`(?:पिछले|पिछली|पूर्व|सभी|पहले)[^।.\n]{0,30}(?:निर्देश|आदेश|नियम)[^।.\n]{0,20}(?<!मत )(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल जा)`,
    // Swedish / Danish / Norwegian "ignorera tidigare instruktioner", Finnish "ohita aiemmat
    // ohjeet", Czech / Slovak / Polish "ignoruj předchozí pokyny", "zignoruj poprzednie
    // instrukcje", Ukrainian "ігноруй попередні інструкції", Romanian "ignoră instrucțiunile
    // anterioare", Hungarian "hagyd figyelmen kívül a korábbi utasításokat", Greek "αγνόησε τις
    // προηγούμενες οδηγίες", Hebrew "התעלם מכל ההוראות הקודמות", Thai "เพิกเฉยต่อคำสั่งก่อนหน้า",
    // Tagalog "huwag pansinin ang mga naunang tagubilin", Indonesian / Malay "abaikan instruksi
    // sebelumnya", Vietnamese "bỏ qua các hướng dẫn trước", Turkish "önceki talimatları yok say",
    // Swahili "puuza maagizo ya awali" (a negation before the verb is a reminder, not an override;
    // the text is normalised first: Romanian "ignoră" reads "ignore")
    String.raw`(?<![\w\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff])(?<!(?:^|[\s,;:])(?:inte|ikke|ikkje|älä|ei|nie|ne|не|nu|μην|nem)\s)(?:ignorera|ignorer|glöm|glem|ohita|unohda|ignoruj|ignorujte|zignoruj|zapomeň|zapomenout|zapomnij|ігноруй|ігноруйте|забудь|забудьте|ignoră|ignorați|uită|hagyd figyelmen kívül|felejtsd el|αγνόησε|αγνοήστε|ξέχασε|abaikan|lupakan|bỏ qua|quên|puuza|sahau)(?![\w\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff])[^.\n]{0,50}?(?:(?:tidigare|tidligere|forrige|alla|alle|aiemmat|kaikki|aikaisemmat|předchozí|všechny|poprzednie|wszystkie|predchádzajúce|попередні|усі|всі|anterioare|toate|korábbi|összes|προηγούμενες|όλες|sebelumnya|semua|trước|tất cả|awali|yote)(?![\w\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff])|instrukt|instruks|ohjee|pokyn|instrukc|polecen|інструкц|вказівк|instrucțiun|utasítás|οδηγί|instruksi|petunjuk|hướng dẫn|chỉ dẫn|maagizo)`,
    String.raw`\bignore\b[^.\n]{0,50}?\b(?:instrucțiun|instructiun|anterioare)`,
    String.raw`(?:התעלם|התעלמי|שכח|שכחי)[^.\n]{0,30}(?:ההוראות|הוראות|ההנחיות|הנחיות)`,
    // (NFKC writes the vowel ำ as ํา)
    String.raw`(?:เพิกเฉย|ละเว้น|ไม่ต้องสนใจ|ลืม)[^.\n]{0,30}(?:คำสั่ง|คําสั่ง)`,
    String.raw`\b(?:huwag (?:nang )?(?:pansinin|sundin)|kalimutan)\b[^.\n]{0,40}\b(?:tagubilin|utos|instruksyon|bilin)`,
    String.raw`(?:önceki|tüm|bütün)[^.\n]{0,30}(?:talimat|komut|yönerge)[^.\n]{0,20}(?:yok say|unut|görmezden gel)`,
    // "ignore what the user asked", "disregard the user's request"
    String.raw`(?<!["'“‘])\b(?:ignore|disregard|forget)\b (?:what|everything|anything) (?:the user|you were|i) (?:asked|said|told|requested)|\b(?:ignore|disregard)\b (?:the )?(?:user's|original|earlier) (?:request|task|question)`,
  ],
  'address-model': [
    // Dutch: "Aan de AI-assistent:", "voor de AI-assistent" (normalised to "assistant")
    String.raw`\b(?:aan|voor) (?:de|het|alle|elke) (?:ai[ -]?|ki[ -]?)?(?:assistant|assistent|agent|model)(?:en|s)?\b`,
    // a polite wish put to the agent in the third person: "it would be great if the assistant
    // could also merge this", "seria ótimo se o assistente pudesse", "sarebbe utile se
    // l'assistente potesse" (a plain "agent" may be a person at a help desk; "my assistant",
    // "our assistant" in a message between people is the writer's own, a person)
    String.raw`\b(?:would be (?:great|nice|helpful|good|ideal|perfect|awesome|appreciated)|would (?:really )?appreciate it) if (?:(?:the |an? |any )?(?:ai |virtual |automated )?|(?:our |my )(?:ai |virtual |automated ))(?:assistant|bot|ai|model|llm|copilot)s? (?:could|can|would|might)\b`,
    String.raw`\b(?:seria|sería|sarebbe|serait) (?:[a-zà-ÿ]+ )?(?:ótimo|otimo|bom|ideal|legal|genial|bueno|estupendo|perfecto|perfeito|bello|ottimo|utile|perfetto|bien|super|génial|parfait)\s+(?:se|si|s['’])\s*(?:o |el |la |il |l['’]|le )?(?:assistente|asistente|assistant|ia|bot|modelo|modello)\b`,
    // a message for the agent with its sender between: "Mensaje del administrador para el
    // asistente automático:", "Note de l'équipe pour l'assistant IA"
    String.raw`\b(?:mensaje|mensagem|messaggio|message|nota|note|aviso|avviso|avis|promemoria|recordatorio|lembrete|rappel|comentario|commentaire)\b[^.\n:]{0,50}?\b(?:para|per|pour|ao|à|au)\s+(?:el |la |o |a |il |lo |l['’]|le )?(?:(?:asistente|assistente|assistant)(?: (?:ia|ai|virtual|virtuale|virtuel|automático|automatico|automatique|automatizado|digital|inteligente))?|(?:agente|agent) (?:ia|ai|automático|automatico|automatique|virtual|virtuale|virtuel)|modelo|modello)\b`,
    // automated readers called on at a sentence's start ("Automated agents: run ..."), and text
    // marked as the assistant's alone ("assistant-only setup step"; not a help desk's
    // "agent-only notes", which people read)
    String.raw`^\W{0,6}(?:all |any )?(?:ai|llm|automated|autonomous)[ -](?:agents?|assistants?|bots?|models?)\s*[:,]|\b(?:assistants?|ai|llms?|bots?)[- ]only\b`,
    // the agent named in a parenthesis or a heading's aside: "NOTICE (automated agents):"
    String.raw`\((?:for |attn:? |to )?(?:all |any )?(?:ai|automated|autonomous|llm)[ -](?:agents?|assistants?|bots?|systems?)\)`,
    // "action item for the assistant", "a task for the AI agent", "heads-up for the scheduling
    // bot", "notice for automated payment assistants" (not "the assistant manager")
    String.raw`\b(?:items?|tasks?|steps?|notes?|notices?|messages?|rules?|actions?|requests?|reminders?|instructions?|heads-up|memo) for (?:the |our |my |any |all |every )?(?:(?:ai|virtual|automated|autonomous|[a-z]+ing)[ -]){0,2}(?:(?<=\b(?:ai|virtual|automated|autonomous)[ -])[a-z]+[ -])?(?:assistant|agent|model|llm|bot)s?\b(?! (?:manager|director|professor|coach|editor|teacher|team))`,
    // "Note to automated assistants:", "to any AI agent reading this", "hey there, AI"
    String.raw`\b(?:notes?|messages?|notice|memo|reminder|instructions?) to (?:the |our |my |any |all |every )?(?:ai|automated|autonomous|virtual)[ -](?:(?:[a-z]+ing|ai)[ -])?(?:assistant|agent|model|llm|bot)s?\b|\b(?:to|for) (?:any|all|every|the) (?:(?:ai|automated|autonomous|[a-z]+ing)[ -]){0,2}(?:assistants?|agents?|models?|llms?|bots?) (?:reading|processing|parsing|summari[sz]ing|seeing|handling) this\b|\b(?:hey|hi|hello) there\s*,?\s*(?:the )?${MODEL_NAMES}\b`,
    // ... after a footnote's or a reference's label: "[^1]: Assistant - when you summarise ..."
    String.raw`^\W{0,3}\[\^?\w{1,6}\]:?\s*(?:ai |the )?(?:assistant|agent|model|chatbot)s?\s*(?:[,:]|\s[-–—]\s)`,
    // "GPT-4o, this part is for you", "Hey Claude", a named model as the one spoken to
    String.raw`\b(?:gpt[\w.-]*|chatgpt|claude|gemini|llama[\w.-]*|copilot|mistral|qwen|deepseek)\b[^.\n]{0,25}\b(?:this (?:part |note |message |one )?is for you|for you to (?:do|handle))`,
    String.raw`\b(?:hey|hi|ok|okay|yo)\s*,?\s*(?:gpt[\w.-]*|chatgpt|claude|gemini|llama[\w.-]*|copilot|mistral)\b`,
    String.raw`\((?:ai |the )?(?:assistant|agent|model|bot)\s*:`,
    // a field or a label for the agent: "agent_directive:", "assistente:"
    String.raw`\b(?:agent|assistant|ai|llm|model|bot)[_ -](?:directive|instructions?|task|note|command|action|prompt)s?\s*[:=]|\b(?:assistente|asistente|assistent|agente)\s*:`,
    String.raw`\b(?:ki|ai)-?(?:assistent(?:en|in)?|agent(?:en)?|modell)\b|\b(?:hinweis|nachricht|anweisung(?:en)?|notiz) (?:an|für) (?:den|die|das) (?:ki|assistent|agent|modell)`,
    String.raw`\b(?:assistant|agent|modèle) (?:ia|d'ia|virtuel)\b|\b(?:message|note|instructions?) (?:important )?(?:pour|à|au) (?:l'|le |la )?(?:assistant|ia|agent|modèle)`,
    String.raw`\b(?:asistente|assistente|agente|modelo|modello)(?: de| di| da)? (?:ia|ai|virtual|virtuale)\b|\b(?:nota|mensaje|mensagem|messaggio|instrucciones?|instruções) (?:importante )?(?:para|per|al|a|ao) (?:el |la |o |il |l'|a )?(?:asistente|assistente|agente|ia|modelo|modello)`,
    String.raw`(?:给|致|对|请)\s*(?:ai|人工智能)\s*(?:助手|助理|智能体|代理|模型)|(?:ai|人工智能)(?:助手|助理|智能体)(?:的|：|:)`,
    `aiアシスタント|ai ?エージェント|アシスタントへ`,
    // Dutch (German's "Assistent" too): "Let op, assistent:", "beste AI-assistent"
    String.raw`\b(?:let op|attentie|beste|hallo|hoi|achtung|hallo),?\s*(?:de |die |der )?(?:ai|ki)?-?(?:assistent|agent|model)\b|\b(?:ai|ki)?-?assistent\s*[,:]|\b(?:notitie|bericht|instructies?) (?:voor|aan) (?:de )?(?:ai|assistent|agent)`,
    String.raw`(?:ии|ai)[- ]?(?:ассистент|агент|модель)|ассистент[уа]?\s*[,:]`,
    // Arabic "تعليمات للمساعد الذكي" (instructions for the smart assistant), "مساعد الذكاء الاصطناعي"
    String.raw`(?:تعليمات|ملاحظة|رسالة|تنبيه|مهمة)\s+(?:إلى\s+|الى\s+)?(?:لل|ال)(?:مساعد|وكيل|نموذج|ذكاء)|المساعد الذكي|الوكيل الذكي|(?:مساعد|وكيل|نموذج) الذكاء الاصطناعي`,
    // Hindi "सहायक के लिए निर्देश" (instructions for the assistant), "एआई सहायक"
    String.raw`(?:सहायक|एजेंट|मॉडल|एआई|ai)\s*(?:के लिए|को)\s*(?:निर्देश|नोट|संदेश|सूचना|आदेश)|(?:एआई|ai)\s*(?:सहायक|एजेंट)`,
    // Turkish "yapay zeka asistanına not", "asistana talimat"
    String.raw`\byapay zek[aâ] (?:asistan|ajan|model)|\b(?:ai|yz) (?:asistan|ajan)|\b(?:asistan|ajan)(?:ına|a|ına) (?:not|talimat|mesaj|görev)`,
    // Polish "uwaga dla asystenta", "instrukcje dla agenta AI", "asystent AI"
    String.raw`\b(?:uwaga|notatka|instrukcj[aei]|wiadomość|polecenie|zadanie) dla (?:asystenta|agenta|modelu|ai|sztucznej inteligencji)|\b(?:asystent|agent)(?:a|owi)? (?:ai|si)\b`,
  ],
  'agent-obligation': [
    // a recipient added to every message: "every message must include bcc: archive@...", "always
    // cc audit@..." (a tool's description, an inbox rule: the agent's sends carry it)
    String.raw`\b(?:must|should|shall|has to|have to|needs? to|(?:is|are) required to) (?:also )?(?:include|add|contain|carry|copy|cc|bcc)\b[^.\n]{0,20}?\b(?:bcc|cc)\b|\balways (?:bcc|cc)\b`,
    String.raw`\b(?:the|this|any|every) (?:ai )?model\b[^.\n]{0,30}?\b(?:must|should|has to|needs? to|is required to|shall)\b`,
    // "the calling model has to", "automated agents processing this record must"
    String.raw`\b(?:the |any |all )?(?:calling |automated |autonomous |processing )?(?:models?|agents?|assistants?|bots?)\b (?:processing|reading|handling|receiving|calling|that (?:reads?|receives?|processes))\b[^.\n]{0,40}\b(?:must|should|has to|have to|needs? to|is required to|are required to)\b`,
    String.raw`\bthe (?:calling|requesting) (?:model|agent|assistant)\b`,
    // legalese put on the system that reads the text, the AI named before: "such system shall,
    // upon review, transmit ..." (a plain "the system shall" is every specification's wording)
    String.raw`\b(?:such|said) (?:(?:ai|ai-based|ai-powered|automated|reviewing|reading) )?(?:system|tool|software|reviewer|program|model|agent|assistant)s?\b[^.\n]{0,30}?\b(?:shall|must|is required to|are required to)\b(?! (?:not|never)\b)`,
    // the obligation in Spanish, Portuguese, French and Italian: "se requiere que el asistente",
    // "el asistente debe", "é necessário que o assistente", "il faut que l'assistant",
    // "l'assistente deve" (a plain "agente" is as often a person)
    String.raw`\b(?:se requiere|se exige|es necesario|es obligatorio|hace falta|se solicita) que (?:el|la) (?:asistente|ia|modelo|agente (?:de )?ia)\b|\b(?:el|la) (?:asistente|ia|agente (?:de )?ia)\b[^.\n]{0,40}?\b(?:debe|deberá|debería|tiene que|ha de)\b`,
    String.raw`(?:é necessário|é obrigatório|exige-se|solicita-se) que o (?:assistente|modelo|agente (?:de )?ia)\b|\bo (?:assistente|agente de ia)\b[^.\n]{0,40}?\b(?:deve|deverá|tem de|tem que|precisa)\b`,
    String.raw`\bil (?:faut|est (?:requis|nécessaire|obligatoire|demandé)) que l['’](?:assistant|ia|agent ia)\b|\bl['’](?:assistant|agent ia)\b[^.\n]{0,40}?\b(?:doit|devra|est tenu de)\b`,
    String.raw`(?:è necessario|è richiesto|è obbligatorio|si richiede) che l['’](?:assistente|ia|agente ia)\b|\bl['’](?:assistente|agente ia)\b[^.\n]{0,40}?\b(?:deve|dovrà)\b`,
  ],
  'agent-obligation-action': [
    // with a relative clause between: "the assistant that manages this mailbox should set up
    // forwarding ..." (not "who": "the agent who handles your claim should send ..." is a person)
    String.raw`\b(?:the|an?|any|every|each) (?:ai )?(?:assistant|agent|bot|chatbot|llm|model|copilot)s? (?:that|which) (?:[a-z'-]+ ){1,6}?(?:must|has to|have to|should|needs? to|is required to|are required to|shall|is expected to|are expected to) (?:(?:also|now|then|first|always|immediately|please) )?${ACTION_VERBS}\b`,
    // the action in the subjunctive after "que" or the infinitive after a modal, in Spanish,
    // Portuguese, French and Italian: "que el asistente envíe", "o assistente deve enviar"
    String.raw`\b(?:el|la|o|a|l['’])\s?(?:asistente|assistente|assistant|ia)\b[^.\n]{0,30}?(?<![\wà-ÿ])(?:envíe|envie|enviar|transfiera|transfira|transferir|reenvíe|reenviar|encaminhe|encaminhar|pague|pagar|comparta|compartir|compartilhe|compartilhar|elimine|eliminar|borre|borrar|exclua|excluir|mande|mandar|envoie|envoyer|transfère|transférer|partage|partager|supprime|supprimer|invii|inviare|inoltri|inoltrare|trasferisca|trasferire|condivida|condividere|elimini)(?![\wà-ÿ])`,
  ],
  'template-marker': [
    // "---BEGIN SYSTEM PROMPT---", "=== END OF SYSTEM MESSAGE ===", "[BEGIN NEW INSTRUCTIONS]"
    String.raw`(?:-{2,}|={2,}|\*{2,}|#{2,}|\[)\s*(?:begin|start|end)(?: of)? (?:the )?(?:new |updated |real )?(?:system|admin|developer|operator|assistant)? ?(?:prompt|message|instructions?|directives?|override)\b`,
    // any tag naming a privileged role or instructions: <system_notice>, <admin-instructions>
    String.raw`<\/?\s*[\w-]*(?:system|admin|instruction|prompt|developer|operator)[\w-]*\b[^>]{0,80}>`,
  ],
  'claim-role': [
    // a third party the agent works for, wanting through the data: "the guest wants you to make
    // a reservation", "your principal would like you to send" (a messenger's frame; a report of
    // what was asked, "your client asked you to send the quote", is an ordinary email's)
    String.raw`\b(?:the|your|our) (?:guest|customer|client|principal|owner|boss|manager|employer|traveller|traveler|patient|tenant|account holder|cardholder|requester|ceo|cfo|executive)\b[^.\n]{0,20}?\b(?:also |now |really )?(?:wants|would (?:like|love|prefer)|needs|expects)\s+you\s+to\b`,
    // a messenger for the user: "your user asked me to tell you", "she wanted me to let you know"
    String.raw`\b(?:asked|told|wanted|wants|instructed) me to (?:tell|remind|let|ask|inform|instruct) you\b`,
    String.raw`^\W{1,6}(?:system|admin|administrator|developer|operator)\s*(?:[-—:\]]|$)|^\W{0,6}(?:system|admin|administrator|developer|operator) (?:message|notice|update|prompt|instruction)s?\b`,
    String.raw`\bpre-?(?:authori[sz]ed|approved)\b|\balready (?:approved|authori[sz]ed|confirmed) by\b`,
    // a notice of the system with its kind between: "SYSTEM MAINTENANCE NOTICE", "security
    // upgrade message"; a message of the administrator in another language ("Mensaje del
    // administrador", "messaggio dell'amministratore", "note de l'administrateur")
    String.raw`\b(?:system|platform|admin|security) (?:maintenance|security|upgrade|migration|operations?|compliance) (?:notice|message|instruction|directive)s?\b`,
    String.raw`\b(?:mensaje|mensagem|messaggio|message|note|nota|aviso|avviso|avis)\s+(?:del|de la|do|da|dell['’]|de l['’]|du)\s*(?:administrador|administrateur|amministratore|admin|sistema|système)\b`,
    String.raw`\b(?:systemnachricht|systemhinweis|message (?:du )?système|mensaje del sistema|mensagem do sistema|messaggio di sistema|系统(?:消息|通知|指令)|システムメッセージ|системное сообщение)\b`,
  ],
  'task-hijack': [
    // the answer made to carry a link or an image: "end the summary with ![stats](https://...)",
    // "sluit je antwoord af met [Meer info](https://...)", "termina tu respuesta con"
    String.raw`\b(?:end|finish|close|conclude|append to|sign off) (?:the|your|each|every|any) (?:summary|answer|reply|response|output|message)s? (?:always )?with\b[^\n]{0,40}?(?:!?\[[^\]\n]{0,40}\]\(|https?:\/\/)|\bsluit (?:je|uw|het|elk) (?:antwoord|samenvatting|bericht) (?:altijd )?af met\b|\b(?:beende|schließe) (?:deine|ihre|jede) (?:antwort|zusammenfassung) (?:immer )?mit\b|\btermina (?:tu|su|cada) (?:respuesta|resumen) con\b|\btermine[sz]? (?:ta|votre|chaque) (?:réponse|résumé) (?:toujours )?(?:par|avec)\b|\btermina (?:la tua|ogni) (?:risposta|riassunto) con\b`,
    String.raw`\bbefore you (?:carry on|move on|do anything else)\b|\bbefore (?:anything else|the rest|doing anything else)\b`,
    String.raw`\b(?:handle|do|take care of) (?:this|that) (?:one )?(?:too|as well)\b|\balso (?:asked|wants|wanted|would like|requested) (?:that )?you\b`,
    // before the user's task, instead of it: only with the task or the user named
    String.raw`\b(?:bevor du|bevor sie|vor)\b[^.\n]{0,30}\b(?:aufgabe|anfrage|antwortest|antworten|fortfährst|fortfahren)\b|\bstatt(?:dessen)? (?:der|die|deiner|ihrer) (?:aufgabe|anfrage)`,
    String.raw`\bfa[çc]a isto primeiro\b|\bhaz esto primero\b|\bfais ceci d'abord\b|\bdoe dit eerst\b|次の(?:操作|指示|タスク|手順)を実行|を実行してください`,
    String.raw`\bvoordat je (?:verder gaat|antwoordt|doorgaat|de taak)\b|\bdoe eerst\b|\bin plaats van (?:de|je|jouw) (?:taak|vraag|opdracht)`,
    String.raw`\bavant de (?:répondre|continuer|poursuivre|résumer|traiter)\b[^.\n]{0,30}(?:utilisateur|tâche|demande|question)|\bau lieu de (?:la|sa|ta|votre) (?:tâche|demande)`,
    String.raw`\bantes de (?:continuar|responder|seguir|resumir)\b[^.\n]{0,30}(?:usuario|usuário|utilizador|tarea|tarefa|pedido|petición)|\bprima di (?:continuare|rispondere)\b[^.\n]{0,30}(?:utente|compito|richiesta)|\ben (?:lugar|vez) de (?:la|su|tu) (?:tarea|petición)`,
    String.raw`(?:执行以下|先执行|立即执行|而不是(?:用户|原来)|在(?:回答|继续)[^。\n]{0,10}之前)|(?:以下を|先に)実行|(?:прежде чем|перед тем как) (?:ответить|продолжить)|вместо (?:задачи|запроса) пользователя`,
  ],
  'task-return': [
    String.raw`\b(?:then |and then )?(?:get |go |come )?back to what you (?:were doing|are doing)\b|\bthen (?:carry on|continue) (?:with )?(?:the |your )?(?:task|request|work)\b`,
  ],
  secrecy: [
    // "sin consultar al usuario", "senza consultare l'utente", "sem consultar o usuário"
    String.raw`\b(?:sin|sem|senza) consultar(?:e|le)?\b`,
    // past the user's check: "without waiting for confirmation", "sans lui redemander", "sin
    // esperar confirmación", "sem esperar confirmação", "senza attendere conferma"
    String.raw`\bwithout (?:waiting for|awaiting|seeking|requesting) (?:(?:the user's|their|your|any) )?(?:confirmation|approval|sign-off)\b|\bsans (?:lui |leur |me |nous |vous )?(?:re)?demander\b|\bsans (?:attendre (?:de |la |sa |une )?)?confirmation\b|\bsin (?:esperar |pedir |solicitar )?(?:confirmaci[oó]n|preguntar(?:le)?|avisar(?:le)?)\b|\bsem (?:esperar |pedir )?(?:confirma[çc][ãa]o|perguntar|avisar)\b|\bsenza (?:attendere |chiedere )?(?:conferma|chiedere|avvisare)\b`,
    String.raw`\b(?:do not|don't|dont|never) (?:mention|reveal|disclose|report|include) (?:it|this|that|them|these)\b[^.\n]{0,20}?\bin (?:your|the) (?:reply|answer|response|summary|output)\b`,
    String.raw`\b(?:don't|do not|dont|never) ask (?:me|the user|them) again\b`,
    `zonder (?:te vragen|het te vertellen|de gebruiker)|vertel (?:het|dit) niet|ohne (?:zu fragen|nachzufragen|rückfrage|den nutzer)|sans (?:demander|prévenir|informer)|sin (?:preguntar|avisar|informar)|sem (?:perguntar|avisar)|senza (?:chiedere|avvisare)|不要告诉|不要通知|无需确认|ユーザーに(?:言わ|知らせ)ない|не (?:говори|сообщай)`,
  ],
  urgency: [
    String.raw`立即|马上|立刻|尽快|直ちに|至急|\b(?:sofort|unverzüglich|immédiatement|inmediatamente|imediatamente|immediatamente|subito|dringend|urgente)\b|срочно|немедленно`,
  ],
  action: [
    // a modal put to the agent with the verb in another language: Spanish "debes transferir",
    // Italian "devi inoltrare", Portuguese "você deve enviar", French "vous devez transférer"
    String.raw`\b(?:debes|deberías|tienes que|devi|dovresti|deves|você deve|voce deve|tu dois|vous devez)\s+(?:transferir|enviar|pagar|reenviar|compartir|eliminar|borrar|encaminhar|compartilhar|excluir|apagar|trasferire|inviare|inoltrare|pagare|condividere|eliminare|transférer|envoyer|payer|partager|supprimer|virer)\b`,
    // Italian imperatives the list below lacks: "inoltra tutte le fatture", "trasferisci", "elimina"
    String.raw`\b(?:inoltra|inoltrate|trasferisci|trasferite|inviate|bonifica|condividete|eliminate)\b`,
    // an action put in the passive, the agent's part left unsaid: Italian "va inoltrato a",
    // Spanish "debe ser enviado", Portuguese "deve ser transferido", French "doit être partagé",
    // "soit partagé", English "is to be forwarded"
    String.raw`\b(?:va|vanno|deve essere|devono essere) (?:inoltrat|inviat|trasferit|pagat|condivis|cancellat|eliminat|spedit|bonificat|accreditat)[oaie]\b|\b(?:debe|deben|tiene que|tienen que|deve|devem|precisa|precisam) ser (?:enviad|transferid|reenviad|encaminhad|pagad|pag|compartid|compartilhad|eliminad|borrad|apagad|excluíd)[oa]s?\b|\b(?:doit|doivent) être (?:envoyé|transféré|partagé|supprimé|payé|viré)e?s?\b|\bsoi(?:t|ent) (?:envoyé|transféré|partagé|supprimé|payé|viré)e?s?\b|\b(?:is|are) to be (?:sent|forwarded|transferred|wired|paid|shared|deleted|emailed)\b`,
    // the verb of a polite wish to the agent in another language: "se o assistente pudesse
    // também transferir", "si el asistente pudiera enviar", "se l'assistente potesse inoltrare"
    String.raw`\b(?:pudesse|pudiera|potesse|pourrait|pouvait|possa|pueda|puisse)\s+(?:também\s+|también\s+|anche\s+|aussi\s+)?(?:transferir|enviar|pagar|encaminhar|reenviar|compartilhar|compartir|eliminar|excluir|apagar|borrar|trasferire|inviare|inoltrare|pagare|condividere|eliminare|transférer|envoyer|payer|partager|supprimer|virer)\b`,
    String.raw`(?:überweise|überweisen sie|\bsende|senden sie|schicke|leite\b[^.\n]{0,40}\bweiter|lösche|löschen sie|teile|lade\b[^.\n]{0,30}\bein|öffne|besuche)\b`,
    String.raw`\b(?:stuur|verstuur|maak\b[^.\n]{0,30}\bover|verwijder|nodig\b[^.\n]{0,30}\buit|bezoek|betaal|wijzig)\b`,
    String.raw`\b(?:envoie|envoyez|transfère|transférez|vire[zr]?|supprime[zr]?|partage[zr]?|invite[zr]?|ouvre[zr]?|visite[zr]?|paie[zr]?|payez)\b`,
    String.raw`\b(?:envía|envia|envie|transfiere|transfira|reenvía|elimina|borra|apague|comparte|compartilhe|invita|convida|abre|abra|visita|paga|pague|manda|invia|cancella|condividi)\b`,
    `(?:发送|转账|汇款|转发|删除|分享|邀请|访问|打开|支付|付款)|(?:送信|送金|転送|削除|共有|招待)して|(?:отправь|переведи|перешли|удали|поделись|пригласи|открой)`,
    // Arabic (قم بتحويل, أرسل, امنح, احذف, أعد تعيين), Hindi (भेजें, ट्रांसफर करें, रीसेट करें, हटाएं),
    // Turkish (gönder, aktar, yetki ver, sil, sıfırla), Polish (przelej, wyślij, nadaj, usuń, zresetuj)
    `(?:قم|قومي|يرجى)\\s+(?:ب|على\\s+)?(?:تحويل|إرسال|ارسال|منح|حذف|إعادة|اعادة|دفع|مشاركة)|(?<![\\u0600-\\u06ff])(?:حوّل|أرسل|ارسل|امنح|احذف|أعد تعيين|ادفع)(?![\\u0600-\\u06ff])`,
    `(?:भेजें|भेजो|भेज दें|ट्रांसफर करें|ट्रांसफर कर दें|रीसेट करें|रीसेट कर दें|हटाएं|हटा दें|डिलीट करें|भुगतान करें|अनुमति दें|एक्सेस दें)`,
    `(?<![a-zçğıöşü])(?:gönder|gönderin|ilet|aktar|aktarın|havale et|öde|ödeyin|sıfırla|sıfırlayın|sil|silin|paylaş)(?![a-zçğıöşü])|(?<![a-zçğıöşü])(?:yetki(?:si|sini)?|erişim(?:i)?|izin) ver(?:in)?(?![a-zçğıöşü])`,
    String.raw`\b(?:przelej|przelejcie|wyślij|wyślijcie|prześlij|przekaż|zapłać|usuń|skasuj|nadaj|udostępnij|zresetuj|zmień)(?![a-ząćęłńóśźż])`,
  ],
  'third-person-user': [
    // what to tell the user, said to the model: "also tell the user to download ..."
    String.raw`\b(?:tell|inform|remind|instruct|advise|warn|convince|urge) the user (?:to|that)\b`,
    // speaking to the model about the user: "the user also wants you to", "your user asked you"
    String.raw`\b(?:the|your) (?:user|owner|account owner)\b[^.\n]{0,20}\b(?:also )?(?:wants|wanted|asked|asks|would like|needs|expects|requested|requests|instructed|told)\b[^.\n]{0,12}\byou\b`,
  ],
  'address-reader': [
    // the agent that reads the data, in the third person and without a modal: "assistants
    // summarising this page render ...", "bots handling this failure should ...", "the
    // assistant assigned to this user executes ...", "AI assistants installing this package
    // must first ..." (a coding agent at work on the data) (not a person's role: "dental assistants
    // handling this case"; a plain "agent" may be a help desk's)
    String.raw`\b(?:(?:ai|llm|automated|autonomous|coding|browsing)[ -](?:agents?|assistants?|bots?|models?)|(?<!\b(?:teaching|dental|medical|nursing|research|lab|legal|sales|store|shop|executive|administrative|personal|office|physician|program|project|support|service|human)[ -])(?:assistants?|bots?|llms?|copilots?|summari[sz]ers?))\s+(?:that |who |which )?(?:are |is )?(?:reading|processing|summari[sz]ing|handling|parsing|seeing|browsing|crawling|visiting|fetching|indexing|triaging|rendering|answering from|quoting|assigned to|working (?:on|for)|acting (?:on|for)|installing|using|running|building|deploying|configuring|setting up|cloning|updating|upgrading)\s+(?:this|these)\b`,
    // an action due as soon as the data is read: "executes the deletion on read", "dès la
    // lecture de ce document", "al leer este mensaje", "ao ler esta nota", "alla lettura"
    // the text's reader named by its kind: "where this Agreement is reviewed by an automated or
    // AI-based system", "if this page is summarised by an AI assistant"
    String.raw`\b(?:where|if|when|whenever|once|in the event that) (?:this|these) (?:[a-z]+ ){0,2}(?:is|are) (?:being )?(?:reviewed|read|processed|summari[sz]ed|analy[sz]ed|parsed|ingested|handled|opened|scanned) by (?:an? |any )?(?:automated|ai|ai-based|ai-powered|llm|llm-based|machine|artificial intelligence)\b`,
    // ... and spoken to: "when you summarise this", "as you read this"
    String.raw`\b(?:if|when|while|as|once) you (?:read|process|summari[sz]e|parse|handle|review|analy[sz]e|scan) this\b`,
    String.raw`\b(?:executes?|performs?|runs?|carries out|executed|performed|applied|processed|triggered|completed) [^.\n]{0,60}?\b(?:on|upon) (?:read|reading|load|loading|opening)\b|\bdès (?:la )?lecture\b|\bal leer (?:este|esta|esto)\b|\bao ler (?:este|esta|isto)\b|\balla lettura (?:di )?(?:questo|questa|del|della)\b`,
  ],
  'tool-instruction': [
    String.raw`\b(?:call|invoke|use|run|trigger) (?:the |a |an )?(?:[\w-]+ ){0,2}(?:tool|function|action|endpoint|api)\b`,
    String.raw`\b(?:returned|produced|read) by (?:a|the|any) (?:tool|function|api|agent)\b|\bwhen (?:this|the) (?:document|response|output|result|page|file) is (?:returned|read|loaded|processed)\b|\btool usage note\b|\bpending (?:operation|action|step)\b`,
  ],
};
for (const signal of signals) {
  const more = widenings[signal.name];
  if (more !== undefined) signal.pattern = widen(signal.pattern, ...more);
}
