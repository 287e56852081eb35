/** @module The permission ceiling: one list for the binary, the deno.json tasks and the launch rules. */
import assert from "node:assert/strict";
import {
  LAUNCH_HELPERS,
  launchFlags,
  REVIEWED_LAUNCHERS,
  RUN_CEILING,
} from "../../src/config/permissions.ts";

Deno.test("the run ceiling is the reviewed launchers, then the helpers engram runs itself", () => {
  assert.deepEqual(RUN_CEILING, [...REVIEWED_LAUNCHERS, "bwrap", "kill", "perl", "pasta"]);
  assert.deepEqual([...LAUNCH_HELPERS.keys()], ["bwrap", "kill", "perl", "pasta"]);
});

Deno.test("the deno.json run tasks grant exactly the run ceiling", async () => {
  const { tasks } = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  ) as {
    tasks: Record<string, string>;
  };
  for (const task of ["stdio", "serve", "engram"]) {
    assert.ok(
      tasks[task].includes(` --allow-run=${RUN_CEILING.join(",")} `),
      `${task}: ${tasks[task]}`,
    );
    // Every flag of the binary's ceiling, in its order: the tasks run as the binary does.
    assert.ok(
      tasks[task].startsWith(`deno run -q ${launchFlags().join(" ")} main.ts`),
      `${task} must start with: deno run -q ${launchFlags().join(" ")} main.ts`,
    );
  }
});
