/**
 * @module Fact rules for what is said about the team or project: the tools it uses or switched
 * to, deadlines, and "our <thing> is <value>" statements.
 */
import type { FactCandidate } from "../../core/ports/language_model.ts";
import { categoryOf, keyOf, purposeKey } from "./categories.ts";
import { fact, type FactRule, isTeamNoun, subjectOf, usable } from "./fact_shapes.ts";
import { cleanValue, conjugate, firstClause, thirdPerson, wordCount } from "./phrasing.ts";

const ADVERBS =
  "now|currently|mostly|mainly|primarily|also|still|just|already|actually|all|only|usually|exclusively";
const USE_VERBS = "use|'re using|are using|'m using|am using|have been using|'ve been using|" +
  "rely on|are relying on|run|are running|'re running|build with|are building with|" +
  "'re building with|develop with|deploy to|deploy on|host on|host with|standardi[sz]ed on|" +
  "settled on|went with|chose|picked|decided on";
const PRONOUN_USES = new RegExp(`^(we|I)(?: (?:${ADVERBS}))* (${USE_VERBS}) (.+)$`, "i");
const NOUN_USES =
  /^((?:the|our|this) [\p{L}\p{N}.'-]+(?: [\p{L}\p{N}.'-]+)?) (uses|is using|relies on|runs on|is built (?:with|on)|is written in|is deployed (?:to|on)|is hosted on|is powered by) (.+)$/iu;
const SWITCHED =
  /^(we|I|(?:the|our) [\p{L}\p{N}.'-]+)(?: (?:have|'ve|has|just|recently|finally|now|already|eventually))* (switched|moved|migrated|changed|upgraded|transitioned)( over)?(?: (?:the|our|my) ([\p{L}\p{N}.' -]+?))?(?: from (.+?))? to (.+)$/iu;
const DUE =
  /^((?:the|our|my|this) )?([\p{L}\p{N}.' -]+?)(?: is| are|'s| was)? due (?:(on|by|before|at|in|for) )?(.+)$/iu;
const DEADLINE = /^(?:the|our|my) deadline(?: (?:for|of|on) (.+?))? (?:is|'s) (?:(on|by) )?(.+)$/i;
const THING_IS =
  /^(our|the) ([\p{L}\p{N}.'-]+(?: [\p{L}\p{N}.'-]+){0,3}?) (is|are|'s|will be) (.+)$/iu;
/** Something a deadline can be: a date, a weekday, a month, or a relative day. */
const DATE_LIKE =
  /\d|\b(?:today|tomorrow|tonight|noon|midnight|eod|eow|eom|end of|next|this (?:week|month|quarter|year)|q[1-4]|monday|tuesday|wednesday|thursday|friday|saturday|sunday|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b/i;
/** "the <thing> is" openings that describe the conversation, not the project. */
const THING_BLOCKED =
  /^(?:problem|issue|error|bug|question|thing|point|reason|idea|answer|result|output|difference|fix|code|test|file|function|command|way|best|easiest|hardest|first|last|next|other|one|same|trick|catch|news|response|message|user|assistant|option|solution|cause|culprit|change|diff|log|line|value|type|variable|method|class|call|request|step|part|rest|case|example|plan|goal|good news|bad news|main thing|only thing|weird thing|tests|logs|errors)$/;
/** Values that are a passing state ("the build is failing"), not a fact. */
const STATE =
  /^(?:down|up|broken|fixed|done|ready|slow|fast|fine|ok|okay|good|bad|wrong|right|correct|same|different|better|worse|gone|missing|empty|full|green|red|there|here|\S+ing)$/i;
const PROGRESSIVE_BASE: Readonly<Record<string, string>> = {
  using: "use",
  relying: "rely",
  running: "run",
  building: "build",
};
const TRAILING_TIME =
  /\s+(?:for now|now|these days|nowadays|at the moment|currently|too|as well)$/i;

/** The facts a clause states about the team or project; `assistant` narrows to team subjects. */
export function teamFacts(clause: string, options: { assistant?: boolean } = {}): FactCandidate[] {
  for (const rule of TEAM_RULES) {
    // From the assistant, only "our X is Y": "the X is Y" there is mostly talk about the work.
    if (options.assistant && rule === thingIs && !/^our\b/i.test(clause)) continue;
    const found = rule(clause).filter((f) => !options.assistant || f.subject !== "user");
    if (found.length > 0) return found;
  }
  return [];
}

/** A tool choice's object: the tool, what it is for, and what it replaced. */
interface UseObject {
  value: string;
  purpose?: string;
  other?: string;
}

function parseObject(raw: string): UseObject | null {
  let s = firstClause(raw).replace(/,?\s+as (?:it|they|we|I)\b.*$/i, "");
  let other: string | undefined;
  const instead = /^(.+?) (?:instead of|rather than|over) (.+)$/i.exec(s);
  if (instead) [s, other] = [instead[1], cleanValue(instead[2])];
  s = s.replace(TRAILING_TIME, "");
  let purpose: string | undefined;
  const forAs = /^(.+?) (?:for|as) (.+)$/i.exec(s);
  if (forAs) [s, purpose] = [forAs[1], firstClause(forAs[2], { andBreaks: true })];
  // "Redis to cache sessions": the infinitive says why, not what.
  s = s.replace(/ to (?!the\b|our\b|a\b|an\b)[a-z]+\b.*$/i, "");
  const value = cleanValue(s).replace(/^(?:a|an|the)\s+/i, "");
  if (!usable(value, { maxWords: 6 })) return null;
  return { value, ...(purpose ? { purpose } : {}), ...(other ? { other } : {}) };
}

/** The "uses" attribute: by purpose, else by the tool's category, else by the tool itself. */
function useAttribute(o: UseObject, fallbackCategory?: string): string {
  const slot = o.purpose
    ? purposeKey(o.purpose)
    : categoryOf(o.value) ?? (o.other ? categoryOf(o.other) : undefined) ?? fallbackCategory;
  return slot ? `uses for ${slot}` : `uses ${keyOf(o.value)}`;
}

function uses(clause: string): FactCandidate[] {
  const pronoun = PRONOUN_USES.exec(clause);
  const noun = pronoun ? null : NOUN_USES.exec(clause);
  const m = pronoun ?? noun;
  const subject = m && subjectOf(m[1]);
  if (!m || !subject) return [];
  const object = parseObject(m[3]);
  if (!object) return [];
  const verb = m[2].toLowerCase();
  const attribute = useAttribute(object, /written in/.test(verb) ? "language" : undefined);
  const said = pronoun ? presentVerb(verb) : verb;
  const tail = thirdPerson(firstClause(m[3]), { self: subject.self });
  return [
    fact(
      { subject: subject.key, attribute, value: object.value },
      `${subject.text} ${said} ${tail}`,
    ),
  ];
}

/** A first-person verb for a third-person subject: "'re using" → "uses", "rely on" → "relies on". */
function presentVerb(verb: string): string {
  if (/^(?:chose|picked|went|settled|decided|standardi)/.test(verb)) return verb;
  const simple = verb.replace(/^(?:'re|are|'m|am|have been|'ve been) /, "")
    .replace(/^\S+/, (w) => PROGRESSIVE_BASE[w] ?? w);
  return simple.replace(/^\S+/, (w) => conjugate(w));
}

function switched(clause: string): FactCandidate[] {
  const m = SWITCHED.exec(clause);
  const subject = m && subjectOf(m[1]);
  if (!m || !subject) return [];
  const object = parseObject(m[6]);
  if (!object) return [];
  if (m[4] && !object.purpose) object.purpose = m[4];
  if (m[5] && !object.other) object.other = firstClause(m[5]);
  const verb = m[2].toLowerCase();
  const at = clause.search(/\b(?:switched|moved|migrated|changed|upgraded|transitioned)\b/i);
  const tail = thirdPerson(firstClause(clause.slice(at + verb.length)), { self: subject.self });
  const text = `${subject.text} ${verb} ${tail}`;
  const known = object.purpose || categoryOf(object.value) ||
    (object.other && categoryOf(object.other));
  if (!known && verb === "moved") {
    // "I moved to Berlin" is about a place, not a tool.
    if (subject.key !== "user" || wordCount(object.value) > 4) return [];
    return [fact({ subject: "user", attribute: "lives in", value: object.value }, text)];
  }
  return [
    fact({ subject: subject.key, attribute: useAttribute(object), value: object.value }, text),
  ];
}

function due(clause: string): FactCandidate[] {
  const deadline = DEADLINE.exec(clause);
  if (deadline) {
    const date = firstClause(deadline[3], { andBreaks: true });
    if (!DATE_LIKE.test(date) || !usable(date, { maxWords: 6 })) return [];
    const thing = deadline[1]
      ? subjectOf(`the ${deadline[1].replace(/^(?:the|our|my)\s+/i, "")}`)
      : null;
    if (deadline[1] && !thing) return [];
    const owner = /^my\b/i.test(clause) ? "user" : "team";
    const key = { subject: thing?.key ?? owner, attribute: "due" };
    const text = thing
      ? `The deadline for ${thirdPerson(deadline[1])} is ${
        deadline[2] ? `${deadline[2]} ` : ""
      }${date}`
      : `The ${owner}'s deadline is ${deadline[2] ? `${deadline[2]} ` : ""}${date}`;
    return [fact({ ...key, value: date }, text)];
  }
  const m = DUE.exec(clause);
  if (!m || !m[1] && wordCount(m[2]) > 3) return [];
  const thing = subjectOf(`${m[1] ?? "the "}${m[2]}`);
  const date = firstClause(m[4], { andBreaks: true });
  if (!thing || !DATE_LIKE.test(date) || /^to\b/i.test(date) || !usable(date, { maxWords: 6 })) {
    return [];
  }
  const prep = m[3] ? `${m[3].toLowerCase()} ` : "";
  return [
    fact(
      { subject: thing.key, attribute: "due", value: date },
      `${thing.text} is due ${prep}${date}`,
    ),
  ];
}

function thingIs(clause: string): FactCandidate[] {
  const m = THING_IS.exec(clause);
  if (!m) return [];
  const np = keyOf(m[2]);
  const head = np.split(" ").at(-1) ?? "";
  if (THING_BLOCKED.test(np) || THING_BLOCKED.test(head)) return [];
  const called = /^(?:called|named) (.+)$/i.exec(m[4]);
  const value = firstClause(called ? called[1] : m[4]);
  if (!usable(value) || STATE.test(value)) return [];
  if (!called && /^(?:in|on|at|to|for|from|with|if|where|what|how|why)\b/i.test(value)) return [];
  const team = isTeamNoun(np);
  const attribute = called ? (team ? "name" : `${np} name`) : np;
  const owner = m[1].toLowerCase() === "our" && !team ? "the team's" : "the";
  const verb = m[3] === "'s" ? "is" : m[3].toLowerCase();
  const said = thirdPerson(called ? m[4] : value, { self: "team" });
  return [fact({ subject: "team", attribute, value }, `${owner} ${m[2]} ${verb} ${said}`)];
}

/** Team rules, first match wins. */
const TEAM_RULES: readonly FactRule[] = [due, switched, uses, thingIs];
