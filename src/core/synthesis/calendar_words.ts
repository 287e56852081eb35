/**
 * @module Date phrases as people write them in notes — "Friday", "by 22 May", "end of sprint",
 * "2024-06-03", "31.05.", "（6/28まで）", "para el viernes" — for due dates and meeting dates.
 * Weekday and month names come from Intl in the languages the cue words cover, so no list of
 * calendar words is kept by hand.
 */

/** Languages whose weekday and month names are recognised. */
const LOCALES = ["en", "de", "fr", "es", "it", "pt"];

/** Every weekday and month name (long and short) of LOCALES, longest first. */
function calendarNames(): {
  weekdays: string[];
  months: string[];
  monthIndex: ReadonlyMap<string, number>;
} {
  const weekdays = new Set<string>();
  const months = new Set<string>();
  const monthIndex = new Map<string, number>([["sept", 8]]);
  for (const locale of LOCALES) {
    for (const style of ["long", "short"] as const) {
      const day = new Intl.DateTimeFormat(locale, { weekday: style, timeZone: "UTC" });
      const month = new Intl.DateTimeFormat(locale, { month: style, timeZone: "UTC" });
      for (let d = 0; d < 7; d++) {
        // 2024-01-01 was a Monday.
        const name = day.format(Date.UTC(2024, 0, 1 + d)).toLowerCase().replace(/\.$/, "");
        weekdays.add(name);
        // Portuguese writes "sexta" for "sexta-feira".
        weekdays.add(name.replace(/-feira$/, ""));
      }
      for (let m = 0; m < 12; m++) {
        const name = month.format(Date.UTC(2024, m, 15)).toLowerCase().replace(/\.$/, "");
        months.add(name);
        monthIndex.set(name, m);
      }
    }
  }
  // "Sept" is common in English notes; Intl only knows "Sep".
  months.add("sept");
  const byLength = (a: string, b: string) => b.length - a.length;
  return {
    weekdays: [...weekdays].filter((w) => w.length >= 3).sort(byLength),
    months: [...months].filter((m) => m.length >= 3).sort(byLength),
    monthIndex,
  };
}

const NAMES = calendarNames();
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const WEEKDAY = `(?:${NAMES.weekdays.map(escape).join("|")})`;
const MONTH = `(?:${NAMES.months.map(escape).join("|")})\\.?`;
const ORDINAL = String.raw`\d{1,2}(?:st|nd|rd|th|er|º|ª)?\.?`;
const PERIOD =
  "(?:day|week|sprint|month|quarter|year|cycle|iteration|semana|mes|mois|semaine|woche|monat|settimana|mese)";

/** One date phrase, as written. */
const DATE_PHRASE = [
  String.raw`\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2})?`,
  String.raw`\d{4}/\d{1,2}/\d{1,2}`,
  String.raw`\d{1,2}\.\d{1,2}\.(?:\d{2,4})?`,
  String.raw`\d{1,2}/\d{1,2}(?:/\d{2,4})?`,
  `(?:(?:next|this|coming|el|le|la|o|a|am|il|nächsten|próximo|próxima|prochain)\\s+)?${WEEKDAY}(?:,?\\s+(?:the\\s+)?${ORDINAL}(?:\\s+(?:de\\s+)?${MONTH})?)?`,
  `${ORDINAL}\\s+(?:de\\s+|of\\s+)?${MONTH}(?:,?\\s+(?:de\\s+)?\\d{4})?`,
  `${MONTH}\\s+${ORDINAL}(?:,?\\s+\\d{4})?`,
  `(?:end|start|beginning|middle|mid|ende|anfang|mitte|fin|début|finales|fine|inizio)\\s+(?:of\\s+(?:the\\s+)?|de\\s+(?:la\\s+)?|del\\s+|di\\s+)?(?:${PERIOD}|${MONTH})`,
  `(?:this|next|the\\s+next|esta|este|próxima|próximo|cette|ce|la\\s+prochaine|le\\s+prochain|diese|nächste|nächsten|questa|prossima|prossimo)\\s+${PERIOD}`,
  "today|tonight|tomorrow|eod|eow|asap|heute|morgen|hoy|mañana|aujourd'hui|demain|oggi|domani|hoje|amanhã",
  "q[1-4](?:\\s+\\d{4})?",
].join("|");

const BOUNDED_DATE = `(?<![\\p{L}\\p{N}])(?:${DATE_PHRASE})(?![\\p{L}\\p{N}])`;

/** Words that introduce a due date. */
const DUE_INTRO =
  "by|due(?:\\s+(?:on|by|date))?|before|until|till|no later than|deadline:?|bis(?:\\s+(?:zum|spätestens))?|spätestens|para(?:\\s+el)?|antes\\s+del?|hasta(?:\\s+el)?|d'ici|avant(?:\\s+le)?|pour(?:\\s+le)?|entro(?:\\s+il)?|prima\\s+di|até|ate|por";

const DUE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${DUE_INTRO})\\s+(?:the\\s+)?(${DATE_PHRASE})(?![\\p{L}\\p{N}])`,
  "iu",
);
const BARE_DATE = new RegExp(BOUNDED_DATE, "iu");
const JA_DUE = /[（(]?\s*(\d{1,2}\/\d{1,2}|\d{1,2}月\d{1,2}日)\s*まで\s*[）)]?/u;

/** A due date introduced as one ("by Friday", "(due 20 May)", "bis 31.05.", "6/28まで"). */
export function dueIn(text: string): { due: string; start: number; end: number } | null {
  const ja = JA_DUE.exec(text);
  if (ja) return { due: ja[1], start: ja.index, end: ja.index + ja[0].length };
  const m = DUE.exec(text);
  if (!m) return null;
  return { due: tidy(m[1]), start: m.index, end: m.index + m[0].length };
}

/** The first date phrase of any kind in `text`, with where it is. */
export function dateIn(text: string): { date: string; start: number; end: number } | null {
  const m = BARE_DATE.exec(text);
  return m ? { date: tidy(m[0]), start: m.index, end: m.index + m[0].length } : null;
}

/** A phrase without the full stop that ends its sentence ("by 14 June." → "14 June"). */
function tidy(phrase: string): string {
  return phrase.trim().replace(/(?<=\p{L})\.$/u, "");
}

/** Whether the whole of `text` is a date phrase (a table's Due cell, say). */
export function isDatePhrase(text: string): boolean {
  const t = text.trim();
  const m = BARE_DATE.exec(t);
  return m !== null && m.index === 0 && m[0].length === t.length;
}

/** "2024-05-14", "2024/06/20". */
const ISO_DATE = /(?<!\d)(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?!\d)/;
/** "21.05.2024". */
const DOTTED_DATE = /(?<!\d)(\d{1,2})\.(\d{1,2})\.(\d{4})(?!\d)/;
/** A month name, captured. */
const MONTH_WORD = `(${NAMES.months.map(escape).join("|")})\\.?`;
/** "14 May 2024", "14. Mai 2024", "3 de mayo de 2024". */
const DAY_FIRST_DATE = new RegExp(
  `(?<!\\d)(\\d{1,2})(?:st|nd|rd|th|er)?\\.?\\s+(?:de\\s+)?${MONTH_WORD},?\\s+(?:de\\s+)?(\\d{4})`,
  "iu",
);
/** "May 14, 2024". */
const MONTH_FIRST_DATE = new RegExp(
  `${MONTH_WORD}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})`,
  "iu",
);

/**
 * A calendar date (YYYY-MM-DD) in `text` when it names one with its year: "2024-05-14",
 * "14 May 2024", "May 14, 2024", "21.05.2024", "2024/06/20"; else null.
 */
export function calendarDate(text: string): string | null {
  const iso = ISO_DATE.exec(text);
  if (iso) return ymd(+iso[1], +iso[2] - 1, +iso[3]);
  const dotted = DOTTED_DATE.exec(text);
  if (dotted) return ymd(+dotted[3], +dotted[2] - 1, +dotted[1]);
  const dayFirst = DAY_FIRST_DATE.exec(text);
  if (dayFirst) {
    return ymd(+dayFirst[3], NAMES.monthIndex.get(dayFirst[2].toLowerCase())!, +dayFirst[1]);
  }
  const monthFirst = MONTH_FIRST_DATE.exec(text);
  if (monthFirst) {
    return ymd(+monthFirst[3], NAMES.monthIndex.get(monthFirst[1].toLowerCase())!, +monthFirst[2]);
  }
  return null;
}

function ymd(year: number, month: number, day: number): string | null {
  if (month === undefined || month < 0 || month > 11 || day < 1 || day > 31) return null;
  const d = new Date(Date.UTC(year, month, day));
  if (d.getUTCMonth() !== month) return null;
  return d.toISOString().slice(0, 10);
}
