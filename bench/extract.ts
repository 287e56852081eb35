/**
 * @module `deno task bench:extract`: precision and recall of the synthesis rules (issue 18) with
 * no model, on the labelled fixtures in tests/fixtures/synthesis: open-loop tasks, questions and
 * commitments, decisions, and meeting action items (with how often their owner and due date are
 * right). Both halves are reported; `heldout/` was written before the rules and is the one that
 * counts (see tests/fixtures/synthesis/README.md).
 *
 * Options: `--show dev` prints every miss and false alarm of the dev half (never tune on the
 * held-out half's misses); `--json` prints the figures as JSON.
 */
import { parseArgs } from "node:util";
import { findDecisionsIn } from "../src/core/synthesis/decision_rules.ts";
import { findLoops } from "../src/core/synthesis/loop_rules.ts";
import { readMeeting } from "../src/core/synthesis/meeting_rules.ts";
import { overlap, terms } from "../src/core/text/terms.ts";

const ROOT = new URL("../tests/fixtures/synthesis/", import.meta.url).pathname;
const HALVES = ["dev", "heldout"] as const;
const KINDS = ["tasks", "decisions", "action_items", "questions", "commitments"] as const;
type Kind = typeof KINDS[number];

/** A fragment's words a prediction must cover to match it when it does not contain it. */
const WORD_MATCH = 0.7;

/** Targets on the held-out half with no model (issue 18). */
export const TARGETS: Partial<Record<Kind, { p: number; r: number }>> = {
  tasks: { p: 0.9, r: 0.9 },
  decisions: { p: 0.8, r: 0.7 },
  action_items: { p: 0.8, r: 0.7 },
};

interface ActionLabel {
  task: string;
  owner?: string;
  due?: string;
}

interface Labels {
  meeting: boolean;
  tasks: string[];
  decisions: string[];
  action_items: ActionLabel[];
  questions: string[];
  commitments: string[];
}

interface Prediction {
  text: string;
  owner?: string;
  due?: string;
}

interface Score {
  labels: number;
  predicted: number;
  matched: number;
  /** Action items: matched items whose label has an owner, and how many of those agree. */
  owners?: { labelled: number; right: number };
  dues?: { labelled: number; right: number };
}

interface Miss {
  file: string;
  kind: Kind;
  missed: string[];
  false_alarms: string[];
}

const norm = (s: string) =>
  s.normalize("NFKC").toLowerCase().replace(/[`*_]/g, "").replace(/\s+/g, " ").trim();

function matches(prediction: string, fragment: string): boolean {
  if (norm(prediction).includes(norm(fragment))) return true;
  const words = terms(fragment);
  return words.length > 0 && overlap(words, terms(prediction)) >= WORD_MATCH;
}

function samePerson(a: string | undefined, b: string): boolean {
  if (!a) return false;
  const x = norm(a).replace(/^@/, "");
  const y = norm(b).replace(/^@/, "");
  return x === y || x.split(" ")[0] === y.split(" ")[0];
}

function predict(text: string, labels: Labels): Record<Kind, Prediction[]> {
  const loops = findLoops(text).filter((l) => l.status === "open");
  const of = (kind: string) => loops.filter((l) => l.kind === kind).map((l) => ({ text: l.text }));
  const meeting = labels.meeting ? readMeeting(text) : null;
  return {
    tasks: of("task"),
    questions: of("question"),
    commitments: of("commitment"),
    decisions: findDecisionsIn(text).map((d) => ({ text: d.statement })),
    action_items:
      meeting?.action_items.map((a) => ({ text: a.task, owner: a.owner, due: a.due })) ??
        [],
  };
}

/** How `predictions` of one kind match the labels of `o.file`; what did not is added to `o.misses`. */
function score(
  kind: Kind,
  predictions: Prediction[],
  o: { labels: Labels; file: string; misses: Miss[] },
) {
  const { labels, file, misses } = o;
  const wanted = kind === "action_items"
    ? labels.action_items
    : (labels[kind] as string[]).map((task) => ({ task }));
  const taken = new Set<number>();
  const s: Score = { labels: wanted.length, predicted: predictions.length, matched: 0 };
  if (kind === "action_items") {
    s.owners = { labelled: 0, right: 0 };
    s.dues = { labelled: 0, right: 0 };
  }
  const falseAlarms: string[] = [];
  for (const p of predictions) {
    const i = wanted.findIndex((w, i) => !taken.has(i) && matches(p.text, w.task));
    if (i < 0) {
      falseAlarms.push(p.text);
      continue;
    }
    taken.add(i);
    s.matched++;
    const w = wanted[i] as ActionLabel;
    if (s.owners && w.owner) {
      s.owners.labelled++;
      if (samePerson(p.owner, w.owner)) s.owners.right++;
    }
    if (s.dues && w.due) {
      s.dues.labelled++;
      if (p.due && (norm(p.due).includes(norm(w.due)) || norm(w.due).includes(norm(p.due)))) {
        s.dues.right++;
      }
    }
  }
  const missed = wanted.filter((_, i) => !taken.has(i)).map((w) => w.task);
  if (missed.length || falseAlarms.length) {
    misses.push({ file, kind, missed, false_alarms: falseAlarms });
  }
  return s;
}

function add(a: Score, b: Score): Score {
  const pair = (x?: { labelled: number; right: number }, y?: { labelled: number; right: number }) =>
    x || y
      ? {
        labelled: (x?.labelled ?? 0) + (y?.labelled ?? 0),
        right: (x?.right ?? 0) + (y?.right ?? 0),
      }
      : undefined;
  return {
    labels: a.labels + b.labels,
    predicted: a.predicted + b.predicted,
    matched: a.matched + b.matched,
    ...(pair(a.owners, b.owners) ? { owners: pair(a.owners, b.owners) } : {}),
    ...(pair(a.dues, b.dues) ? { dues: pair(a.dues, b.dues) } : {}),
  };
}

/** Scores one half of the fixtures; every label is checked to be verbatim in its source. */
export async function runHalf(
  half: string,
): Promise<{ scores: Record<Kind, Score>; misses: Miss[]; files: number }> {
  const empty = (): Score => ({ labels: 0, predicted: 0, matched: 0 });
  const scores = Object.fromEntries(KINDS.map((k) => [k, empty()])) as Record<Kind, Score>;
  const misses: Miss[] = [];
  let files = 0;
  const names = [...Deno.readDirSync(`${ROOT}${half}`)].map((e) => e.name).sort();
  for (const name of names) {
    if (!name.endsWith(".labels.json")) continue;
    const stem = name.slice(0, -".labels.json".length);
    const source = names.find((n) => n !== name && n.startsWith(`${stem}.`));
    if (!source) throw new Error(`${half}/${name}: no source file beside it`);
    const labels = JSON.parse(await Deno.readTextFile(`${ROOT}${half}/${name}`)) as Labels;
    const text = await Deno.readTextFile(`${ROOT}${half}/${source}`);
    for (const kind of KINDS) {
      for (const label of labels[kind] ?? []) {
        const fragment = typeof label === "string" ? label : label.task;
        if (!norm(text).includes(norm(fragment))) {
          throw new Error(`${half}/${name}: ${kind} label "${fragment}" is not in ${source}`);
        }
      }
    }
    if (!labels.meeting && labels.action_items.length) {
      throw new Error(`${half}/${name}: action items are labelled only in meeting files`);
    }
    const predicted = predict(text, labels);
    files++;
    for (const kind of KINDS) {
      scores[kind] = add(
        scores[kind],
        score(kind, predicted[kind], { labels, file: source, misses }),
      );
    }
  }
  return { scores, misses, files };
}

const ratio = (n: number, d: number) => (d === 0 ? 1 : n / d);
const fmt = (x: number) => x.toFixed(2);

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { show: { type: "string" }, json: { type: "boolean" } },
  });
  if (values.show !== undefined && values.show !== "dev") {
    console.error("--show only takes dev: the held-out half's misses are not for tuning");
    Deno.exit(2);
  }
  const started = performance.now();
  const results: Record<string, Awaited<ReturnType<typeof runHalf>>> = {};
  for (const half of HALVES) results[half] = await runHalf(half);
  const ms = performance.now() - started;
  if (values.json) {
    console.log(JSON.stringify(
      Object.fromEntries(
        HALVES.map((h) => [h, { files: results[h].files, scores: results[h].scores }]),
      ),
      null,
      2,
    ));
  } else {
    console.log(
      "| half | kind | labels | found | right | precision | recall | target (held-out) |",
    );
    console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |");
    for (const half of HALVES) {
      for (const kind of KINDS) {
        const s = results[half].scores[kind];
        const p = ratio(s.matched, s.predicted);
        const r = ratio(s.matched, s.labels);
        const t = TARGETS[kind];
        const verdict = !t || half !== "heldout"
          ? t ? `P ≥ ${t.p} / R ≥ ${t.r}` : "(info)"
          : `P ≥ ${t.p} / R ≥ ${t.r}: ${p >= t.p && r >= t.r ? "PASS" : "FAIL"}`;
        console.log(
          `| ${half} (${
            results[half].files
          } files) | ${kind} | ${s.labels} | ${s.predicted} | ${s.matched} | ${fmt(p)} | ${
            fmt(r)
          } | ${verdict} |`,
        );
      }
      const a = results[half].scores.action_items;
      console.log(
        `| ${half} | action item owner / due right | ${a.owners?.labelled} / ${a.dues?.labelled} | | ${a.owners?.right} / ${a.dues?.right} | ${
          fmt(ratio(a.owners?.right ?? 0, a.owners?.labelled ?? 0))
        } / ${fmt(ratio(a.dues?.right ?? 0, a.dues?.labelled ?? 0))} | | (info) |`,
      );
    }
    console.log(
      `\n${Object.values(results).reduce((n, r) => n + r.files, 0)} files in ${ms.toFixed(0)} ms`,
    );
  }
  if (values.show === "dev") {
    for (const m of results.dev.misses) {
      console.log(`\n${m.file} · ${m.kind}`);
      for (const x of m.missed) console.log(`  missed: ${x}`);
      for (const x of m.false_alarms) console.log(`  false alarm: ${x}`);
    }
  }
}
