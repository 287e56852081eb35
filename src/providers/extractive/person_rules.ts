/**
 * @module Fact rules for what the user says about themself: name, role, "my X is Y", where they
 * live and work, preferences, likes and dislikes, and standing always/never rules.
 */
import type { FactCandidate } from "../../core/ports/language_model.ts";
import { keyOf, preferenceTopic } from "./categories.ts";
import { fact, type FactRule, usable } from "./fact_shapes.ts";
import { cleanValue, clip, conjugate, firstClause, thirdPerson } from "./phrasing.ts";

const USER = "user";
/** Capitalised words after "I'm" that are not names. */
const NOT_NAMES: ReadonlySet<string> = new Set(
  ("sorry not done back here fine good ok okay going using working also still so just really very " +
    "always never currently based from in on at trying looking new glad happy sure afraid the a an " +
    "english british american french german italian spanish canadian australian indian chinese " +
    "japanese korean dutch swedish norwegian danish finnish polish russian brazilian mexican irish " +
    "scottish welsh portuguese swiss austrian belgian").split(" "),
);
/** "my <thing>" said differently for the same attribute. */
const MY_ALIASES: Readonly<Record<string, string>> = {
  job: "role",
  "job title": "role",
  title: "role",
  position: "role",
  occupation: "role",
  profession: "role",
  "full name": "name",
  "first name": "name",
  "given name": "name",
  "email address": "email",
  "e-mail": "email",
  "e-mail address": "email",
  location: "lives in",
  city: "lives in",
  "home town": "hometown",
  "time zone": "timezone",
};
/** "my <thing> is" openings that are talk, not facts. */
const MY_BLOCKED =
  /^(?:problem|question|issue|point|guess|bad|fault|concern|worry|thought|thoughts|understanding|idea|hope|pleasure|apologies|answer|reply|request|suggestion|mistake)$/;
const PAST = /^(?:\S+ed|got|went|had|did|was|were|said|thought|knew|saw|heard|told|made)\b/i;
const TRAILING_TIME = /\s+(?:for now|now|these days|nowadays|at the moment|currently|right now)$/i;

/** The facts a clause states about the user, from the first rule that matches. */
export function personFacts(clause: string): FactCandidate[] {
  for (const rule of PERSON_RULES) {
    const found = rule(clause);
    if (found.length > 0) return found;
  }
  return [];
}

function name(clause: string): FactCandidate[] {
  const m = /^my (?:full |first )?name(?:'s| is) (.+)$/i.exec(clause) ??
    /^(?:please |you can |just )?call me (.+)$/i.exec(clause);
  if (m) {
    const value = firstClause(m[1], { andBreaks: true });
    if (!usable(value, { maxWords: 4 })) return [];
    return [fact({ subject: USER, attribute: "name", value }, `The user's name is ${value}`)];
  }
  // Case matters here: "I'm Ada" is a name, "I'm tired" is not.
  const intro =
    /^(?:I'm|I am|i'm|i am) (\p{Lu}[\p{L}'-]*(?: \p{Lu}[\p{L}'-]*){0,2})(?:(?:,| [—–-]) (an?|the) (.+))?$/u
      .exec(clause);
  if (!intro || NOT_NAMES.has(intro[1].split(" ")[0].toLowerCase())) return [];
  const out = [
    fact({ subject: USER, attribute: "name", value: intro[1] }, `The user's name is ${intro[1]}`),
  ];
  if (intro[2]) out.push(...roleFacts(intro[2], intro[3], { verb: "is" }));
  return out;
}

function role(clause: string): FactCandidate[] {
  const m = /^I(?:'m| am| work as|'m working as| am working as) (an?) (.+)$/i.exec(clause);
  if (!m || /^(?:bit|little|lot|big|huge|fan|quick|fast|slow|good|great)\b/i.test(m[2])) return [];
  return roleFacts(m[1], m[2], { verb: /work/i.test(clause.slice(0, 24)) ? "works as" : "is" });
}

/** A role ("a data engineer at Acme"): the role, and the employer when named. */
function roleFacts(article: string, rest: string, o: { verb: string }): FactCandidate[] {
  const at = /^(.+?) (?:at|for|with) (\p{Lu}.*)$/u.exec(rest);
  const title = firstClause(at ? at[1] : rest, { andBreaks: true });
  if (!usable(title, { maxWords: 6 })) return [];
  const out = [
    fact(
      { subject: USER, attribute: "role", value: title },
      `The user ${o.verb} ${article} ${title}`,
    ),
  ];
  const employer = at ? firstClause(at[2], { andBreaks: true }) : "";
  if (employer && usable(employer, { maxWords: 5 })) {
    out.push(
      fact(
        { subject: USER, attribute: "works at", value: employer },
        `The user works at ${employer}`,
      ),
    );
  }
  return out;
}

function myAttribute(clause: string): FactCandidate[] {
  const m = /^my ([\p{L}\p{N}'-]+(?: [\p{L}\p{N}'-]+){0,3}?) (is|are|'s) (.+)$/iu.exec(clause);
  if (!m) return [];
  const thing = keyOf(m[1]).replace(/^favourite\b/, "favorite");
  const value = firstClause(m[3]);
  if (MY_BLOCKED.test(thing) || !usable(value)) return [];
  const attribute = MY_ALIASES[thing] ?? thing;
  const verb = m[2] === "'s" ? "is" : m[2];
  const said = thirdPerson(value, { self: "user" });
  return [fact({ subject: USER, attribute, value }, `The user's ${m[1]} ${verb} ${said}`)];
}

function location(clause: string): FactCandidate[] {
  const from = /^I(?:'m| am) (?:originally )?from (.+)$/i.exec(clause);
  if (from) {
    const place = firstClause(from[1]);
    if (!usable(place, { maxWords: 5 })) return [];
    return [
      fact({ subject: USER, attribute: "is from", value: place }, `The user is from ${place}`),
    ];
  }
  const m =
    /^I(?:'m| am)?(?: (?:currently|now|still))? (live|living|based|located|reside|residing|staying)(?: (?:now|currently))? (in|near|outside of|outside|out of) (.+)$/i
      .exec(clause);
  if (!m) return [];
  const place = firstClause(m[3]).replace(TRAILING_TIME, "");
  if (!usable(place, { maxWords: 5 })) return [];
  const verb = /^(?:based|located)$/i.test(m[1]) ? `is ${m[1].toLowerCase()}` : "lives";
  return [
    fact(
      { subject: USER, attribute: "lives in", value: place },
      `The user ${verb} ${m[2]} ${place}`,
    ),
  ];
}

function work(clause: string): FactCandidate[] {
  const employed = /^I(?:'m| am) employed (?:at|by) (.+)$/i.exec(clause);
  const m = employed
    ? [clause, "work", "at", employed[1]]
    : /^I(?: (?:currently|now|still|also|mostly|mainly))? (work|'m working|am working) (at|for|on) (.+)$/i
      .exec(clause);
  if (!m || (m[2].toLowerCase() === "on" && m[1].toLowerCase() !== "work")) return [];
  const value = firstClause(m[3]).replace(TRAILING_TIME, "").replace(/^the\s+/i, "");
  if (!usable(value, { maxWords: 6 })) return [];
  const prep = m[2].toLowerCase();
  const attribute = prep === "on" ? "works on" : "works at";
  const said = thirdPerson(value, { self: "user" });
  const the = /^the\s/i.test(firstClause(m[3])) ? "the " : "";
  return [fact({ subject: USER, attribute, value }, `The user works ${prep} ${the}${said}`)];
}

function preference(clause: string): FactCandidate[] {
  const m =
    /^I(?: (?:really|strongly|generally|usually|still|now|definitely|much|always|also|mostly|personally|do))* prefer (.+)$/i
      .exec(clause);
  if (!m) return [];
  const said = firstClause(m[1]).replace(TRAILING_TIME, "");
  const rest = said.replace(/^to\s+/i, "");
  const split = /^(.+?) (?:over|to|instead of|rather than) (.+)$/i.exec(rest);
  const choice = cleanValue((split ? split[1] : rest).replace(
    /^(?:use|using|have|having|work with|working with|write|writing|get|getting|keep|keeping)\s+/i,
    "",
  ));
  const other = split ? firstClause(split[2], { andBreaks: true }) : undefined;
  if (!usable(choice)) return [];
  const topic = preferenceTopic(choice, other);
  const attribute = topic ? `prefers ${topic}` : "prefers";
  return [
    fact(
      { subject: USER, attribute, value: choice },
      `The user prefers ${thirdPerson(said, { self: "user" })}`,
    ),
  ];
}

function opinion(clause: string): FactCandidate[] {
  const fan = /^I(?:'m| am) (not )?(?:an? )?(?:big |huge |great )?fan of (.+)$/i.exec(clause);
  const m = fan
    ? null
    : /^I((?: (?:really|absolutely|truly|just|also|still|kind of|generally|totally|genuinely|honestly|do))*) (like|love|enjoy|hate|dislike|detest|loathe|can't stand|cannot stand|don't(?: really)? (?:like|enjoy)|do not (?:like|enjoy)) (.+)$/i
      .exec(clause);
  if (!fan && !m) return [];
  const object = firstClause(fan ? fan[2] : m![3]);
  if (!usable(object)) return [];
  const negative = fan
    ? Boolean(fan[1])
    : /^(?:hate|dislike|detest|loathe|can|don|do not)/i.test(m![2]);
  const verb = fan ? `is ${fan[1] ? "not " : ""}a fan of` : `${m![1].trim()} ${thirdVerb(m![2])}`;
  const key = { subject: USER, attribute: `opinion of ${keyOf(object)}` };
  return [
    fact(
      { ...key, value: negative ? "dislikes" : "likes" },
      `The user ${verb.trim()} ${thirdPerson(object, { self: "user" })}`,
    ),
  ];
}

/** "don't like" → "doesn't like", "love" → "loves". */
function thirdVerb(verb: string): string {
  const v = verb.toLowerCase();
  if (v.startsWith("don't")) return `doesn't${v.slice(5)}`;
  if (v.startsWith("do not")) return `does not${v.slice(6)}`;
  if (/^(?:can't|cannot)/.test(v)) return v;
  return conjugate(v);
}

function standingRule(clause: string): FactCandidate[] {
  const habit = /^(I|we) (always|never) (.+)$/i.exec(clause);
  const imperative =
    /^(?:please |you should |you must |make sure (?:to |you )?|be sure to )?(always|never) (.+)$/i
      .exec(clause);
  const reminder = /^(?:please )?(?:remember|don't forget|do not forget) to (.+)$/i.exec(clause);
  const dontEver = /^(?:please )?(?:don't|do not) ever (.+)$/i.exec(clause);
  const [word, raw] = habit
    ? [habit[2], habit[3]]
    : imperative
    ? [imperative[1], imperative[2]]
    : reminder
    ? ["always", reminder[1]]
    : dontEver
    ? ["never", dontEver[1]]
    : [];
  if (!word || !raw) return [];
  const action = firstClause(raw);
  // "I never got a reply" tells a story, not a rule.
  if (!usable(action, { maxWords: 14 }) || (habit && PAST.test(action))) return [];
  const always = word.toLowerCase();
  const subject = habit?.[1].toLowerCase() === "we" ? "team" : USER;
  const text = habit
    ? thirdPerson(`${habit[1]} ${always} ${action}`)
    : `The user's rule: ${always} ${thirdPerson(action)}`;
  const attribute = `rule: ${clip(keyOf(action), 80)}`;
  return [fact({ subject, attribute, value: always }, text)];
}

const PERSON_RULES: readonly FactRule[] = [
  name,
  opinion,
  role,
  myAttribute,
  location,
  work,
  preference,
  standingRule,
];
