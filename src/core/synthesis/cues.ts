/**
 * @module The cue words the synthesis rules look for, in English and the languages notes are
 * most often mixed with (German, French, Spanish, Italian, Portuguese, Japanese). No npm package
 * keeps lists of decision or commitment phrasings, so they live here; calendar words come from
 * Intl (see calendar_words.ts) and function words from @orama/stopwords.
 */

/**
 * A case-insensitive pattern matching any of `phrases` as whole words. `\b` only knows ASCII
 * letters ("décidé" would never end at one), so the edges are Unicode lookarounds.
 */
function cue(phrases: string[]): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${phrases.join("|")})(?![\\p{L}\\p{N}_])`, "iu");
}

/** Headings (and "Label:" lines) whose list items are things to do. */
export const TASK_HEADING = either(
  cue([
    "action items?",
    "actions?",
    "to ?-?dos?",
    "tasks?",
    "next steps?",
    "follow[- ]?ups?",
    "work items?",
    "aufgaben",
    "to-?do-?liste",
    "tareas",
    "pendientes",
    "próximos pasos",
    "à faire",
    "a faire",
    "actions à mener",
    "da fare",
    "azioni",
    "próximos passos",
    "tarefas",
    "pendências",
  ]),
  /タスク|宿題|アクション|TODO/u,
);

/** Headings (and "Label:" lines) whose list items are decisions. */
export const DECISION_HEADING = either(
  cue([
    "decisions?",
    "decided",
    "agreed",
    "agreements?",
    "what we decided",
    "resolutions?",
    "beschl(?:uss|üsse)",
    "entscheidungen?",
    "vereinbarungen",
    "décisions?",
    "decisiones",
    "acuerdos",
    "decisioni",
    "decisões",
    "deliberações",
  ]),
  /決定事項|決定|合意/u,
);

/** Headings whose items are questions still open. */
export const QUESTION_HEADING = either(
  cue([
    "open questions?",
    "questions?",
    "open points?",
    "unknowns",
    "offene fragen",
    "fragen",
    "preguntas(?: abiertas)?",
    "dudas",
    "questions ouvertes",
    "domande(?: aperte)?",
    "dúvidas",
    "perguntas",
  ]),
  /質問|未解決|課題/u,
);

/** Headings whose items are neither tasks nor decisions whatever their wording. */
export const CONTEXT_HEADING = either(
  cue([
    "agenda",
    "summary",
    "updates?",
    "context",
    "background",
    "what went well",
    "what didn'?t",
    "ideas",
    "feedback",
    "demoed",
    "timeline",
    "consequences",
    "considered options",
    "alternatives(?: considered)?",
    "lessons",
    "temas",
    "themen",
    "tagesordnung",
    "ordre du jour",
  ]),
  /議題|メモ/u,
);

/** A pattern matching where either pattern matches. */
function either(a: RegExp, b: RegExp): RegExp {
  return new RegExp(`${a.source}|${b.source}`, "iu");
}

/** Wording that records a decision as made. */
export const DECISION_CUE = cue(
  [
    String
      .raw`(?:we|i|they|team|it was|was|were|has been|have|had|already|finally|jointly)\s+(?:\w+\s+)?(?:decided|agreed|settled on|chose|opted)`,
    String.raw`decided\s+(?:to|on|that|against)`,
    String.raw`(?:decision|decided|agreed|agreement|resolved|resolution|approved|verdict)\s*[:—–]`,
    String.raw`(?:going|went)\s+with`,
    String.raw`(?:we(?:'ll| will)?|let'?s|so we)\s+go\s+with`,
    String.raw`settled on`,
    String.raw`(?:was|were|been|is)\s+(?:chosen|selected|approved|rejected|agreed|decided)`,
    String.raw`chosen option`,
    String.raw`(?:chose|opted for|picked)`,
    String.raw`(?:agreed|decided)\s+(?:with|by|in|that|on|to)`,
    String.raw`we agreed`,
    String.raw`team agreed`,
    String.raw`approved`,
    String.raw`rejected`,
    String.raw`(?:is|are)\s+out\s+for`,
    String.raw`(?:we(?:'ll| will))\s+stick\s+with`,
    // German, French, Spanish, Italian, Portuguese
    String.raw`(?:entschieden|beschlossen|beschluss|entscheidung|geeinigt|vereinbart|festgelegt)`,
    String.raw`(?:décidé|décision|convenu|on part sur|retenu|validé|tranché)`,
    String
      .raw`(?:decidimos|decidió|decidido|decidieron|acordamos|acordó|acordado|se aprobó|aprobado|decisión)`,
    String.raw`(?:deciso|decisa|abbiamo deciso|si è deciso|concordato|approvato|decisione)`,
    String.raw`(?:decidimos|ficou decidido|decidido|acordamos|aprovado|decisão)`,
  ],
);

/** Japanese decision wording (no word boundaries in Japanese). */
export const DECISION_CUE_JA = /決定|決まり|決めました|ことになりました|合意しました|採用/u;

/** Wording that says a decision is still open, or only proposed. */
export const UNDECIDED_CUE = cue(
  [
    String.raw`(?:need|needs|have|has|got)\s+to\s+(?:decide|agree|choose|pick)`,
    String
      .raw`(?:not|never|nothing|no one|nobody)\s+(?:yet\s+|been\s+|really\s+)?(?:decided|agreed|chosen|approved)`,
    String
      .raw`(?:haven'?t|hasn'?t|didn'?t|don'?t|have not|has not|did not)\s+(?:yet\s+)?(?:decided|decide|agreed|agree|chosen|choose)`,
    String.raw`undecided`,
    String.raw`no\s+(?:decision|agreement|consensus)`,
    String.raw`decision\s+(?:pending|open|needed|required|later)`,
    String.raw`(?:to be|yet to be|still to be)\s+(?:decided|agreed|discussed|determined)`,
    String.raw`tbd`,
    String.raw`if\s+we\s+(?:decide|agree|choose|go with)`,
    String.raw`(?:whether|until)\s+we\s+(?:decide|agree)`,
    String.raw`(?:noch nicht|nicht)\s+(?:entschieden|beschlossen)`,
    String.raw`(?:rien n'est|pas encore|pas)\s+décidé`,
    String.raw`(?:no se ha|aún no|todavía no|no)\s+(?:decidido|decidió|acordado)`,
    String.raw`(?:non|ancora non)\s+(?:è\s+)?(?:deciso|stato deciso)`,
    String.raw`(?:ainda não|não)\s+(?:foi\s+)?decidido`,
  ],
);

/** Wording of a proposal: undecided unless decision wording follows it ("…; we settled on …"). */
export const PROPOSAL_CUE = cue(
  [
    String
      .raw`(?:propose|proposes|proposed|proposal|suggest|suggests|suggested|maybe|perhaps|might|could)`,
  ],
);

/** Japanese for "undecided". */
export const UNDECIDED_CUE_JA = /未定|検討中|決まっていない/u;

/** Markers of a to-do in running text; `TODO`/`FIXME` only in capitals. */
export const TODO_MARKER =
  /(?:^|[\s([{>*_-])(TODO|FIXME|XXX)(?:\([^)]{0,40}\))?(?=[\s:：,.;!—–-]|$)/u;

/** "Action:", "AI:", "Action item:" at the start of a line. */
export const ACTION_LABEL =
  /^(?:action(?: item)?(?:\s+for\s+(me|[\p{L}][\p{L}.-]*))?|ai|next step|follow[- ]?up)\s*[:：]\s*/iu;

/** A follow-up to do ("follow up with Kenji about …", "need to follow up on …"). */
export const FOLLOW_UP =
  /(?:^|\b(?:need|needs|have|has|must|should|remember|todo)\s+to\s+|^todo\s+)follow[- ]up\s+(?:with|on|about)\b/iu;

/** Replies that leave a question open ("not sure", "no idea", "let's park that"). */
export const DEFERRAL = cue(
  [
    String.raw`(?:don'?t|do not|didn'?t)\s+know`,
    String.raw`nobody\s+(?:knew|knows)`,
    String.raw`no\s+(?:idea|answer|one knows|consensus)`,
    String.raw`not\s+(?:sure|yet|decided|clear|known)`,
    String.raw`unclear`,
    String.raw`(?:can'?t|cannot)\s+(?:say|give you|tell)`,
    String.raw`(?:park|parking|parked)`,
    String.raw`tbd`,
    String.raw`to be (?:discussed|decided|confirmed|determined)`,
    String.raw`(?:let'?s|we'?ll)\s+(?:see|think about it|check|find out|discuss)`,
    String.raw`get back to you`,
    String.raw`still open`,
    String.raw`(?:weiß nicht|unklar|offen)`,
    String.raw`(?:je ne sais pas|pas encore|à voir)`,
    String.raw`(?:no lo sé|no sé|pendiente|por definir)`,
  ],
);

/** Japanese deferrals. */
export const DEFERRAL_JA = /未定|わかりません|分かりません|検討中/u;

/** Lines that introduce the people at a meeting. */
export const ATTENDEE_LABEL =
  /(?:^|[.·|;]\s*)(?:attendees|attending|present|participants|who|people|chair|facilitator|anwesend|teilnehmer(?:innen)?|asistentes|participantes|présents|participants|presenti|partecipanti|参加者|出席者)\s*[:：]\s*/giu;

/** Lines that name people who were not there. */
export const ABSENT_LABEL =
  /^(?:apologies|absent|regrets|entschuldigt|ausentes|absents|assenti)\s*[:：]/iu;

/**
 * Words that look like a speaker in "Word: text" but label the line instead. A transcript's
 * speakers own what they say and are its attendees, so a label taken for a speaker would make
 * "Note", "Agenda" or "Start" an attendee and strip the cue ("TODO:", "Decision:") the other rules
 * read. Labels the rules read already (decision, task, question, attendee wording) are checked
 * by speaker_turns.ts; these are the rest: note-taking labels, meeting furniture ("Agenda",
 * "Break", "Q", "A"), schedule words ("Start: 10:30"), link labels ("Slides: https://…") and URL
 * schemes. None is a given name.
 */
export const SPEAKER_STOP_WORDS: ReadonlySet<string> = new Set(
  ("decision decisions agreed agreement action actions ai todo fixme note notes attendees present " +
    "participants who when where date time status owner owners rationale reason question questions " +
    "open answer summary context update updates agenda topic topics blockers blocker next done fyi " +
    "problem solution result results outcome outcomes goal goals risk risks why what how tl;dr " +
    "chair facilitator apologies deciders reviewers author authors good bad pros cons warning tip " +
    "important example examples see also re subject from to cc location room link links " +
    "q a ps nb edit edited caution info hint reminder remark comment comments conclusion " +
    "proposal motivation objective objectives purpose scope background priority due deadline " +
    "start end duration break lunch intro demo standup retro kickoff wrap-up meeting call title " +
    "slides deck recording video doc docs document minutes ticket issue bug fix idea step " +
    "http https ftp mailto file tel " +
    "hinweis anmerkung ergebnis ort zeit nota remarque résultat resultado resumen lugar hora " +
    "fecha estado risultato riepilogo").split(" "),
);

/** Sentence openers of first-person and team commitments. */
export const COMMITMENT_CUE = cue(
  [
    String.raw`(?:i|we)\s*(?:'|’)ll`,
    String.raw`(?:i|we)\s+will`,
    String.raw`(?:i|we)\s*(?:'|’)?(?:m|re| am| are)\s+going\s+to`,
    String.raw`(?:i|we)\s+(?:shall|promise to|commit to|plan to)`,
    String.raw`(?:i'?m|we'?re|i am|we are)\s+on\s+it`,
    String.raw`(?:i|we)\s*(?:'|’)?(?:m|re| am| are)\s+(?:moving|taking|handling|fixing|working on)`,
  ],
);

/** Waiting on someone else: an open loop of its own. */
export const WAITING_CUE = /\b(?:(?:still\s+)?waiting\s+(?:on|for)|blocked\s+(?:on|by))\b/iu;

/** Subjects of "X will …" that are not people. */
export const NOT_A_PERSON: ReadonlySet<string> = new Set(
  ("this that it there which what who everything nothing nobody someone something anyone it'll " +
    "he she they these those each every all any some one next the a an our your their my his her " +
    "its search billing release production staging monday tuesday wednesday thursday friday " +
    "saturday sunday today tomorrow also then now here when if but and or so because").split(" "),
);
