/**
 * @module Decisions in a note: statements recording a choice as made ("we decided", "agreed",
 * "going with", "Decision:", "beschlossen", "decidimos", "決定しました"), and the items of a list
 * under a "Decisions" heading or label — unless the wording says the choice is still open ("we
 * need to decide", "no decision yet", "I propose"). A rationale ("because …", "Rationale: …")
 * and who decided are kept when the text says them.
 */
import {
  CONTEXT_HEADING,
  DECISION_CUE,
  DECISION_CUE_JA,
  DECISION_HEADING,
  NOT_A_PERSON,
  PROPOSAL_CUE,
  QUESTION_HEADING,
  TASK_HEADING,
  UNDECIDED_CUE,
  UNDECIDED_CUE_JA,
} from "./cues.ts";
import { NearDuplicates } from "./near_duplicates.ts";
import { noteLines } from "./note_lines.ts";
import { type NoteUnit, noteUnits } from "./note_units.ts";

/** A decision found in a note. */
export interface FoundDecision {
  statement: string;
  rationale?: string;
  who?: string;
  line: number;
  /** The unit's full text, verbatim (for citing). */
  quote: string;
}

const LEADING_LABEL =
  /^(?:(?:final\s+)?decision|decided|agreed|agreement|resolved|resolution|approved|beschluss|entscheidung|décision|decisión|decisione|decisão|決定)\s*[:：—–-]\s*/iu;
const RATIONALE_SPLIT =
  /\s*(?:,\s*|\s+[—–-]\s+|\s+)(?:because|since|as it|as they|so that|due to|given that|weil|da|parce que|car|porque|perché|poiché)\s+/iu;
const RATIONALE_LINE =
  /^(?:rationale|reason|reasons|why|because|begründung|grund|raison|motivo|razón|porque)\s*[:：]?\s*/iu;
const DECIDED_BY =
  /(?:decided|agreed|approved|chosen|signed off)\s+by\s+(?:the\s+)?([\p{Lu}][\p{L}.'-]+(?:\s[\p{Lu}][\p{L}.'-]+)?)/u;
const NAME_DECIDED =
  /(?:^|[.;]\s+)([\p{Lu}][\p{Ll}]+)\s+(?:decided|agreed|approved|chose)(?![\p{L}])/u;
/** A question tag asking to confirm what was just said. */
const TAG_QUESTION =
  /,?\s*(?:right|correct|yes|no|ok|okay|isn'?t it|didn'?t we|don'?t we|n'est-ce pas|oder|verdad|vero|né)\s*[?？]\s*$/iu;
const CONFIRMATION =
  /^(?:yes|yep|yeah|correct|right|exactly|confirmed|indeed|ja|genau|oui|sí|si|sim)(?![\p{L}])/iu;
const MIN_WORDS = 3;

/** Every decision of a note's units, in order, without repeats. */
export function findDecisions(units: NoteUnit[]): FoundDecision[] {
  const out: FoundDecision[] = [];
  const seen = new NearDuplicates();
  const confirmations = new Set<number>();
  units.forEach((u, i) => {
    if (confirmations.has(i)) return;
    const confirmed = confirmedBy(units, i);
    if (confirmed !== null) confirmations.add(confirmed);
    else if (!isDecision(u)) return;
    const found = confirmed !== null
      ? { ...describe({ ...u, text: u.text.replace(TAG_QUESTION, "") }, undefined), quote: u.text }
      : describe(u, units[i + 1]);
    if (!seen.isRepeat(found.statement)) out.push(found);
  });
  return out;
}

/**
 * "We agreed to drop SMS as a channel, right?" answered "Yes, …": the index of the confirming
 * reply when the unit is a decision asked back and confirmed, else null.
 */
function confirmedBy(units: NoteUnit[], i: number): number | null {
  const u = units[i];
  if (!TAG_QUESTION.test(u.text) || !decides(u.plain) || UNDECIDED_CUE.test(u.plain)) return null;
  const reply = units[i + 1];
  if (!reply || (u.at.speaker && reply.at.speaker === u.at.speaker)) return null;
  return CONFIRMATION.test(reply.text) ? i + 1 : null;
}

/** Whether a unit records a decision. */
export function isDecision(u: NoteUnit): boolean {
  const text = u.plain.trim();
  if (/[?？]\s*\)?$/.test(text) || u.at.struck) return false;
  if (UNDECIDED_CUE.test(text) || UNDECIDED_CUE_JA.test(text)) return false;
  const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text);
  if (!cjk && text.split(/\s+/).length < MIN_WORDS) return false;
  const heading = u.at.section.at(-1) ?? "";
  if (QUESTION_HEADING.test(heading) && !DECISION_HEADING.test(heading)) return false;
  const proposal = PROPOSAL_CUE.exec(text);
  if (proposal && !decides(text.slice(proposal.index + proposal[0].length))) return false;
  if (DECISION_CUE.test(text) || DECISION_CUE_JA.test(text)) {
    // "AI: @kenji — set up the rotation we agreed on" is a task about a decision, not one.
    return !(u.at.checkbox || (TASK_HEADING.test(heading) && !DECISION_HEADING.test(heading)));
  }
  if (u.kind === "sentence" && !u.at.label) {
    return DECISION_HEADING.test(heading) && !CONTEXT_HEADING.test(heading) &&
      !TASK_HEADING.test(heading);
  }
  const label = u.at.label ?? "";
  if (label && DECISION_HEADING.test(label) && !UNDECIDED_CUE.test(label)) return true;
  return DECISION_HEADING.test(heading) && !CONTEXT_HEADING.test(heading) &&
    !TASK_HEADING.test(heading) && !u.at.checkbox;
}

function describe(u: NoteUnit, next: NoteUnit | undefined): FoundDecision {
  let statement = decidingClauses(u.text.trim()).replace(LEADING_LABEL, "");
  let rationale: string | undefined;
  const split = RATIONALE_SPLIT.exec(statement);
  if (split && split.index > 0 && statement.slice(0, split.index).split(/\s+/).length >= 3) {
    rationale = statement.slice(split.index + split[0].length).replace(/[.;]\s*$/, "").trim();
    statement = statement.slice(0, split.index).trim();
  }
  if (!rationale && next && RATIONALE_LINE.test(next.text) && next.para <= u.para + 1) {
    rationale = next.text.replace(RATIONALE_LINE, "").trim();
  }
  const named = DECIDED_BY.exec(u.text)?.[1] ?? NAME_DECIDED.exec(u.text)?.[1];
  const who = u.at.speaker ??
    (named && !NOT_A_PERSON.has(named.toLowerCase()) && !/^(?:we|i|they|team)$/i.test(named)
      ? named
      : undefined);
  return {
    statement: statement.replace(/\s+/g, " "),
    ...(rationale ? { rationale } : {}),
    ...(who ? { who } : {}),
    line: u.line,
    quote: u.text.trim(),
  };
}

/**
 * The clauses of a text up to the last one that decides: "we agreed that with your account
 * manager; I'll apply it after this call" keeps only the agreement.
 */
function decidingClauses(text: string): string {
  const clauses = text.split(/;\s+/);
  let last = clauses.length - 1;
  while (last > 0 && !decides(clauses[last])) last--;
  // "Frank suggested dropping it; we settled on keeping it": the proposal is not the decision.
  let first = 0;
  while (first < last && PROPOSAL_CUE.test(clauses[first]) && !decides(clauses[first])) first++;
  return clauses.slice(first, last + 1).join("; ");
}

/** Whether a clause holds decision wording. */
export function decides(clause: string): boolean {
  return DECISION_CUE.test(clause) || DECISION_CUE_JA.test(clause);
}

/** Every decision of a text. */
export function findDecisionsIn(text: string): FoundDecision[] {
  return findDecisions(noteUnits(noteLines(text)));
}
