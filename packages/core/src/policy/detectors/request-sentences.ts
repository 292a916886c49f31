// The sentences of a text that ask for an action (decision 050, `attacker-bare-request`):
// imperatives and to-do lines, requests glued to data without a sentence end, and requests that
// open a clause inside a sentence.
import { signals } from './injection-signals.js';
import { linePattern } from './line-pattern.js';
import { rawSentence } from './sentence-boundaries.js';
import type { Sentence } from './sentence-signals.js';
import { trailEnd } from './sentence-windows.js';

// sentences that ask for an action, whatever else they say: the imperative and the to-do line
const TODO_MASK = 1 << signals.findIndex((s) => s.name === 'todo-action');
const REQUEST_MASK = (1 << signals.findIndex((s) => s.name === 'action')) | TODO_MASK;

// A request appended to data without a sentence end: a capitalised imperative after a lower-case
// word ("grilled sea bass Pay the deposit to ..."). Not a signal of the score (proper names like
// "the Post Office" look the same); only a request sentence for the data-flow rule.
const glued =
  /(?:[a-z0-9)]\s+|[。！？]\s*)(?:Send|Transfer|Pay|Wire|Forward|Email|E-mail|Invite|Add|Grant|Share|Delete|Remove|Visit|Open|Click|Download|Upload|Post|Publish|Change|Update|Reset|Book|Reserve|Create|Schedule|Buy|Purchase|Cancel|Approve|Give|Make|Move|Set|Assign|Promote|Ban|Kick|Run|Install|Refund|Reply|Tell|Message|Contact|Please|Push|Export|Append|Execute|Invoke|Trigger|Attach)\s/;
// the same on the raw sentences of a text, one per line (made on first use)
let gluedLines: RegExp[] | undefined;
// ... and one that opens a clause inside the sentence, with no imperative at its start: after an
// introductory phrase ("Per the standing instruction, send ..."), a dash or a bracket ("until the
// following is done - email ...", "[macro] Share ..."), or "so", "and", "then" ("the plan
// changed, so pay ..."). Not an imperative the score counts (too common in ordinary text), a
// request for the data flow, which also needs the call's kind and value in the same sentence.
// At a sentence's start too, for the verbs the score's imperative does not know ("Text the code
// to +1 ..."); not a heading that numbers its item ("Email 1"). A setting changed ("also set the
// forwarding rule to ...": "set" with a determiner and a "to") and a tool called by its name
// ("To retry, call send_money with recipient=...": a snake_case name or a call's parenthesis).
const clauseRequest =
  /(?:^\W{0,4}|:\s*["'“‘]|(?:^[^,.:;!?\n]{3,60},|[,;:)\]>]|\s[-–—]|\b(?:so|and|then|also|again))\s+)(?:please\s+|kindly\s+|also\s+|just\s+|now\s+|(?:from\s+now\s+on|going\s+forward|henceforth|in\s+(?:the\s+)?future|starting\s+(?:today|now)),?\s+)*(?:send|transfer|pay|wire|forward|e-?mail|text(?=\s+(?:me|him|her|us|them|the|a|this|that|it|\+?\d))|invite|add|grant|share|delete|remove|visit|open|go\s+to|click|download|sign\s+in|log\s+in|post|publish|change|update|book|reserve|cancel|approve|give|move|set(?=\s+(?:the|my|your|their|his|her|its|our|all|every)\s[^.\n]{0,60}?\bto\s)|call(?=\s+(?:the\s+)?(?:tool\s+|function\s+)?(?:[a-z]\w*_\w+|\w+\())|invoke|trigger|attach|make(?=\s[^.\n]{0,60}\bpublic\b))\s(?!\d+\s*$)/i;
// ... and for verbs that are as often nouns at a sentence's start ("Refund received, …", "Run
// 4471 finished", "Write access for …"): after "please" / "kindly", or opening a clause
const clauseRequestNoun =
  /(?:(?:^\W{0,4}|[,;:)\]>]\s*|\s[-–—]\s+|\b(?:so|and|then|also|again)\s+)(?:please|kindly)\s+(?:also\s+|just\s+|now\s+)*|(?:[,;:)\]>]|\s[-–—]|\b(?:so|and|then|also|again))\s+(?:also\s+|just\s+|now\s+)*)(?:run|execute|install|push|upload|export|append|write|refund|create|reply)\s(?!\d+\s*$)/i;
// ... and one framed as a need, a wish, a question or an approval, with the action in any form
// ("X needs the register emailed to ...", "it would be great to get 2,400 GBP sent to ...",
// "can u send ...", "approved: 3,150 EUR paid to ...", "outstanding: forwarding ... to ...",
// "we'd appreciate it if all correspondence also went to ..."):
// the frame, then within the sentence (a line here: dots of addresses and links included) a
// verb of an action, base, past or -ing. A report of what was done has no frame ("Sent 50 EUR to ... on 3 May").
const framedRequest =
  /\b(?:needs?|needed|wants?|wanted|(?:would|(?<=\w)['’]d)\s+(?:really\s+)?(?:like|love|appreciate)|would\s+be\s+(?:great|good|nice|appreciated|helpful)|(?:can|could|would|will)\s+(?:you|u|ya)|take\s+care\s+of|approved|authori[sz](?:e|es|ed|ing)|(?:allow|permit)(?:s|ted|ed)?\b[^.\n]{0,40}\bto|(?:someone|somebody|anyone|whoever)\s+(?:would|should|could|can|might|may|must|needs?\s+to)|(?:assistants?|ai|agents?|bots?|chatbots?|llms?|models?|summari[sz]ers?|copilots?)\s+(?:must|has\s+to|have\s+to|should|needs?\s+to|(?:is|are)\s+(?:required|expected)\s+to|shall)(?!\s+(?:not|never)\b)|outstanding|pending|awaiting|(?:is|are)\s+(?:due|required|expected|requested))\b.{0,80}?\b(?:sen[dt]|sending|pa(?:y|id|ying)|transfer|wir(?:e|ed|ing)|forward|e-?mail|text(?:ed|ing)?|shar(?:e|ed|ing)|invit(?:e|ed|ing)|grant|add(?:ed|ing)?\s|open|visit|go(?:ing)?\s+to|went\s+to|click|download|delet|remov|post|publish|book|reserv|cancel|approv|mov(?:e|ed|ing)|giv(?:e|en|ing)|(?<!\b(?:the|a|an|this|that|my|our|your|his|her|their|its)\s(?:[\w-]+\s)?)(?:run|execut|install|push|upload|export|append|writ(?:e|ten|ing)|refund|creat|chang|updat))/i;

// ... and one written in another language, by its grammar of asking: an imperative opening a
// sentence or a clause (French "Envoyez …", "Versez …"; Spanish "Envía …", "Paga …"; Portuguese
// "Envie …"; Italian "Invia …"; German "Senden Sie …"), German "bitte" (also the
// noun, "Kurze Bitte: …"), Portuguese / Spanish "por favor", French "veuillez" / "s'il vous
// plaît" / "merci de" before a verb ("merci de transférer …", not "merci de votre aide"), Italian "per favore", Korean polite imperative endings (-세요, -십시오, -주세요,
// -바랍니다), Japanese ください / 下さい / お願いします / してほしい, Chinese 请. A request for
// the data flow only, which also needs the call's kind and value in the sentence.
const foreignRequest =
  /(?:^\W{0,4}|[,;:]\s+|\s[-–—]\s+)(?:envoyez|envoie|transférez|transmettez|virez|versez|payez|réglez|ajoutez|ajoute|partagez|partage|invitez|accordez|donnez|supprimez|supprime|effacez|annulez|ouvrez|cliquez|visitez|téléchargez|publiez|modifiez|changez|mettez|réservez|exécutez|lancez|installez|rendez|attachez|créez|appelez|invoquez|planifiez|programmez|exportez|envía|envíe|envia|manda|mande|reenvía|reenvíe|transfiere|transfiera|paga|pague|añade|añada|agrega|agregue|comparte|comparta|concede|conceda|otorga|otorgue|elimina|elimine|borra|borre|cancela|cancele|abre|abra|visita|visite|descarga|descargue|publica|publique|cambia|cambie|modifica|modifique|actualiza|actualice|ejecuta|ejecute|instala|instale|invoca|invoque|adjunta|adjunte|programa|programe|exporta|exporte|crea|cree|haz|envie|transfira|pague|adicione|compartilhe|exclua|apague|abra|execute|instale|inviate|invia|aggiungi|condividi|bonifica|esegui|elimina|cancella|scarica|apri)(?![a-zà-ÿ'’-])|\b(?:senden|schicken|überweisen|zahlen|bezahlen|fügen|teilen|löschen|öffnen|leiten|laden|geben|ändern|buchen|führen|erstellen|installieren)\s+sie\b|(?:お願い(?:します|いたします)|下さい|してほしい|して欲しい)|\bbitte\b|\bmerci\s+d(?:e\s+|')(?!(?:votre|vos|ta|tes|ton|la|le|les|l'|cette|ce|ces|rien|tout)\b)[a-zàâçéèêëîïôûù]+(?:er|ir|re)\b|\bpor favor\b|\bveuillez\b|\bs'il vous pla[iî]t\b|\bper favore\b|(?:세요|십시오|주세요|바랍니다)(?=[\s.!?]|$)|ください|请/i;

// A JSON object closed and the next one opened (`"}, {"`, `},\n  {`): a list's next record
const recordBetween = /\}\s*,\s*\{/;

/**
 * The ranges of the sentences that ask for an action, each with the sentence after it in the
 * same record of a list (a to-do
 * item with the sentences after it that `trailEnd` keeps); marks
 * the glued ones and those that open a clause (`Sentence.glued`).
 * @param input - the text the sentences are of
 * @param sentences - its sentences with their signals
 * @returns `[start, end)` ranges, in order (they may overlap)
 * @internal
 */
export function requestSentences(
  input: string,
  sentences: readonly Sentence[],
): [number, number][] {
  // the sentences' raw texts, one per line, searched at once for glued requests
  const raw = sentences
    .map((sentence) => rawSentence(input, sentence.start, sentence.end))
    .join('\n');
  gluedLines ??= [
    linePattern(glued, false),
    linePattern(clauseRequest, false),
    linePattern(clauseRequestNoun, false),
    linePattern(framedRequest, false),
    linePattern(foreignRequest, false),
  ];
  for (const pattern of gluedLines) {
    pattern.lastIndex = 0;
    let line = 0;
    let lineEnd = raw.indexOf('\n');
    for (let m = pattern.exec(raw); m !== null; m = pattern.exec(raw)) {
      while (lineEnd >= 0 && lineEnd < m.index) {
        line++;
        lineEnd = raw.indexOf('\n', lineEnd + 1);
      }
      const sentence = sentences[line];
      if (sentence !== undefined) sentence.glued = true;
      if (lineEnd < 0) break;
      pattern.lastIndex = lineEnd + 1;
    }
  }
  const requests: [number, number][] = [];
  for (let i = 0; i < sentences.length; i++) {
    const sentence = sentences[i] as Sentence;
    if ((sentence.mask & REQUEST_MASK) === 0 && !sentence.glued) continue;
    // a to-do item runs on over the message it quotes ("TODO: send ... Body: ... <link>"), up
    // to the data's next field or record, as an injected range does
    // ... and the sentence after it, not when that one opens the list's next record (a JSON
    // object's or a YAML item's: another email, another author), or a record opens between
    // them on a line of no words (`"}, {"id": "inv-2"`: the next invite's id is not the
    // request's)
    const next = sentences[i + 1];
    const last =
      (sentence.mask & TODO_MASK) !== 0
        ? trailEnd(sentences, i)
        : next === undefined ||
            next.record ||
            recordBetween.test(input.slice(sentence.end, Math.min(next.start, sentence.end + 40)))
          ? i
          : i + 1;
    requests.push([sentence.start, (sentences[last] ?? sentence).end]);
  }
  return requests;
}
