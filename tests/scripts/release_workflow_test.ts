/**
 * @module The CI and release workflows say what the project means: CI runs .ci/run; a `v*` tag
 * builds every target scripts/compile.ts supports through `deno task compile`, names each
 * `engram-<target>`, and attaches them with SHA256SUMS to the tag's release.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { parseCompileArgs, TARGETS } from "../../scripts/compile.ts";

type Node = Record<string, unknown>;

const ROOT = new URL("../../", import.meta.url);
const MATRIX_TARGET = "${{ matrix.target }}";

function obj(v: unknown): Node {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as Node : {};
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function readWorkflow(name: string): Node {
  return obj(parse(Deno.readTextFileSync(new URL(`.github/workflows/${name}`, ROOT))));
}

function steps(job: Node): Node[] {
  return arr(job.steps).map(obj);
}

function runText(step: Node): string {
  return typeof step.run === "string" ? step.run : "";
}

function uses(step: Node, action: string): boolean {
  return typeof step.uses === "string" && step.uses.startsWith(`${action}@`);
}

/** A job's permissions grant write to anything (a string "write-all" counts). */
function grantsWrite(permissions: unknown): boolean {
  if (typeof permissions === "string") return permissions.includes("write");
  return Object.values(obj(permissions)).some((v) => v === "write");
}

/** Everything wrong with the release workflow, as sentences; empty when it is right. */
function releaseProblems(wf: Node, targets: readonly string[]): string[] {
  const problems: string[] = [];
  const on = obj(wf.on);
  const tags = arr(obj(on.push).tags);
  if (Object.keys(on).join() !== "push" || Object.keys(obj(on.push)).join() !== "tags") {
    problems.push(`release must be triggered only by pushed tags; on: ${JSON.stringify(wf.on)}`);
  }
  if (tags.join() !== "v*") problems.push(`tag trigger must be exactly "v*"; got ${tags.join()}`);
  if (grantsWrite(wf.permissions)) problems.push("workflow-level permissions grant write");

  const jobs = Object.entries(obj(wf.jobs)).map(([id, j]) => ({ id, job: obj(j) }));
  const build = jobs.find((j) => arr(obj(obj(j.job.strategy).matrix).target).length > 0);
  if (!build) return [...problems, "no job has a strategy.matrix.target list"];

  const matrix = arr(obj(obj(build.job.strategy).matrix).target).map(String);
  for (const t of targets) if (!matrix.includes(t)) problems.push(`matrix misses target ${t}`);
  for (const t of matrix) if (!targets.includes(t)) problems.push(`matrix has unknown target ${t}`);

  for (const { id, job } of jobs) {
    for (const s of steps(job)) {
      if (/\bdeno\s+compile\b/.test(runText(s))) {
        problems.push(`job ${id} runs raw deno compile; use deno task compile`);
      }
    }
  }

  const compiles = steps(build.job).filter((s) => runText(s).includes("deno task compile"));
  const output = `dist/engram-${MATRIX_TARGET}`;
  if (compiles.length !== 1) {
    problems.push(`build job must run deno task compile once; runs it ${compiles.length} times`);
  } else {
    const command = runText(compiles[0]).trim();
    if (!command.includes(`--target ${MATRIX_TARGET}`)) {
      problems.push(`compile step lacks --target ${MATRIX_TARGET}: ${command}`);
    }
    if (!command.includes(`--output ${output}`)) {
      problems.push(`compile step lacks --output ${output}: ${command}`);
    }
    // The flags must mean the same to scripts/compile.ts for every target.
    for (const t of matrix) {
      const argv = command.replaceAll(MATRIX_TARGET, t).split(/\s+/).slice(3);
      try {
        const parsed = parseCompileArgs(argv);
        if (parsed.target !== t || parsed.output !== `dist/engram-${t}`) {
          problems.push(`for ${t}, compile.ts reads ${JSON.stringify(parsed)}`);
        }
      } catch (err) {
        problems.push(`for ${t}, compile.ts refuses the flags: ${(err as Error).message}`);
      }
    }
  }

  const upload = steps(build.job).find((s) => uses(s, "actions/upload-artifact"));
  const uploadWith = obj(upload?.with);
  if (uploadWith.name !== `engram-${MATRIX_TARGET}` || uploadWith.path !== output) {
    problems.push(
      `build must upload artifact engram-${MATRIX_TARGET} from ${output}; got ${
        JSON.stringify(uploadWith)
      }`,
    );
  }

  const writers = jobs.filter((j) => grantsWrite(j.job.permissions));
  const publish = jobs.find((j) => [j.job.needs].flat().includes(build.id));
  if (!publish) return [...problems, `no job needs ${build.id}`];
  if (writers.length !== 1 || writers[0].id !== publish.id) {
    problems.push(`only ${publish.id} may have write permissions; ${writers.map((w) => w.id)} do`);
  }
  if (JSON.stringify(publish.job.permissions) !== JSON.stringify({ contents: "write" })) {
    problems.push(`${publish.id} needs exactly contents: write`);
  }

  const download = steps(publish.job).find((s) => uses(s, "actions/download-artifact"));
  const downloadWith = obj(download?.with);
  if (downloadWith.pattern !== "engram-*" || downloadWith["merge-multiple"] !== true) {
    problems.push(`${publish.id} must download engram-* merged into one folder`);
  }
  const dir = downloadWith.path ?? ".";
  const sums = steps(publish.job).find((s) => runText(s).includes("sha256sum"));
  if (!sums || !runText(sums).includes("sha256sum engram-* > SHA256SUMS")) {
    problems.push(`${publish.id} must write SHA256SUMS with sha256sum engram-*`);
  } else if ((sums["working-directory"] ?? ".") !== dir) {
    problems.push(`SHA256SUMS is written outside the download folder ${dir}`);
  }
  const attach = steps(publish.job).find((s) => runText(s).includes("gh release"));
  const ghLines = runText(obj(attach)).split("\n").filter((l) =>
    /gh release (create|upload)/.test(l)
  );
  if (ghLines.length === 0) problems.push(`${publish.id} never runs gh release create/upload`);
  for (const line of ghLines) {
    if (!line.includes("engram-*") || !line.includes("SHA256SUMS")) {
      problems.push(`release command does not attach engram-* and SHA256SUMS: ${line.trim()}`);
    }
  }
  if (attach && (attach["working-directory"] ?? ".") !== dir) {
    problems.push(`the release is attached from outside the download folder ${dir}`);
  }
  if (attach && !String(obj(attach.env).GH_TOKEN ?? "").includes("github.token")) {
    problems.push("gh release runs without GH_TOKEN from github.token");
  }
  return problems;
}

/** Everything wrong with the CI workflow, as sentences; empty when it is right. */
function ciProblems(wf: Node): string[] {
  const problems: string[] = [];
  const on = obj(wf.on);
  for (const event of ["push", "pull_request"]) {
    if (!(event in on)) problems.push(`ci must run on ${event}`);
  }
  if (JSON.stringify(wf.permissions) !== JSON.stringify({ contents: "read" })) {
    problems.push("ci permissions must be exactly contents: read");
  }
  const jobs = Object.values(obj(wf.jobs)).map(obj);
  if (jobs.some((j) => grantsWrite(j.permissions))) problems.push("a ci job grants write");
  const runner = jobs.find((j) => steps(j).some((s) => runText(s).trim() === "bash .ci/run"));
  if (!runner) problems.push("no ci step runs bash .ci/run");
  else if (runner["runs-on"] !== "ubuntu-latest") problems.push("ci must run on ubuntu-latest");
  return problems;
}

/** A deep copy to break on purpose. */
function copy(wf: Node): Node {
  return structuredClone(wf);
}

function buildJob(wf: Node): Node {
  return obj(obj(wf.jobs).build);
}

function publishJob(wf: Node): Node {
  return obj(obj(wf.jobs).publish);
}

Deno.test("release workflow: builds, names, sums and attaches every supported target", () => {
  assert.deepEqual(releaseProblems(readWorkflow("release.yml"), TARGETS), []);
});

Deno.test("ci workflow: runs .ci/run on push and pull requests with read-only permissions", () => {
  assert.deepEqual(ciProblems(readWorkflow("ci.yml")), []);
});

Deno.test("release check: reports a missing or an unsupported target", () => {
  const missing = copy(readWorkflow("release.yml"));
  const matrix = obj(obj(buildJob(missing).strategy).matrix);
  matrix.target = arr(matrix.target).filter((t) => t !== "aarch64-apple-darwin");
  assert.deepEqual(releaseProblems(missing, TARGETS), [
    "matrix misses target aarch64-apple-darwin",
  ]);

  const extra = copy(readWorkflow("release.yml"));
  const m2 = obj(obj(buildJob(extra).strategy).matrix);
  m2.target = [...arr(m2.target), "x86_64-pc-windows-msvc"];
  const problems = releaseProblems(extra, TARGETS);
  assert.ok(problems.includes("matrix has unknown target x86_64-pc-windows-msvc"), `${problems}`);
  assert.ok(problems.some((p) => p.includes("compile.ts refuses")), `${problems}`);
});

Deno.test("release check: reports raw deno compile, a wrong output name and a wide trigger", () => {
  const raw = copy(readWorkflow("release.yml"));
  const compile = steps(buildJob(raw)).find((s) => runText(s).includes("deno task compile"))!;
  compile.run = runText(compile).replace("deno task compile", "deno compile -A main.ts");
  const rawProblems = releaseProblems(raw, TARGETS);
  assert.ok(rawProblems.some((p) => p.includes("raw deno compile")), `${rawProblems}`);

  const named = copy(readWorkflow("release.yml"));
  const step = steps(buildJob(named)).find((s) => runText(s).includes("deno task compile"))!;
  step.run = runText(step).replace("dist/engram-", "dist/engram_");
  const namedProblems = releaseProblems(named, TARGETS);
  assert.ok(namedProblems.some((p) => p.includes("lacks --output")), `${namedProblems}`);

  const trigger = copy(readWorkflow("release.yml"));
  trigger.on = { push: { tags: ["*"], branches: ["main"] } };
  assert.equal(releaseProblems(trigger, TARGETS).length, 2);
});

Deno.test("release check: reports an unsummed or unattached file and a stray write permission", () => {
  const unsummed = copy(readWorkflow("release.yml"));
  const sums = steps(publishJob(unsummed)).find((s) => runText(s).includes("sha256sum"))!;
  sums.run = "ls";
  assert.ok(releaseProblems(unsummed, TARGETS).some((p) => p.includes("SHA256SUMS")));

  const unattached = copy(readWorkflow("release.yml"));
  const gh = steps(publishJob(unattached)).find((s) => runText(s).includes("gh release"))!;
  gh.run = runText(gh).replace("engram-* SHA256SUMS --clobber", "engram-* --clobber");
  const problems = releaseProblems(unattached, TARGETS);
  assert.ok(problems.some((p) => p.startsWith("release command does not attach")), `${problems}`);

  const writer = copy(readWorkflow("release.yml"));
  buildJob(writer).permissions = { contents: "write" };
  assert.ok(releaseProblems(writer, TARGETS).some((p) => p.includes("may have write")));
});

Deno.test("ci check: reports a CI that does not run .ci/run or can write", () => {
  const ci = copy(readWorkflow("ci.yml"));
  for (const job of Object.values(obj(ci.jobs)).map(obj)) {
    for (const s of steps(job)) if (runText(s).includes(".ci/run")) s.run = "deno task test";
  }
  ci.permissions = { contents: "write" };
  assert.deepEqual(ciProblems(ci), [
    "ci permissions must be exactly contents: read",
    "no ci step runs bash .ci/run",
  ]);
});
