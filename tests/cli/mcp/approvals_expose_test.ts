/**
 * @module What agents see after an approval, through the real CLI: approving without --expose
 * (and discover's hint) says the tool is not offered until exposed, and how; a collision of
 * exposed names is reported with its fix, and settled with `approvals approve … --as NAME`, kept
 * in the database and the lockfile, under which an agent on `engram stdio` lists and calls it.
 */
import assert from "node:assert/strict";
import { connectStdio, resultText } from "../../helpers.ts";
import { assertFails } from "../_util.ts";
import { type FixtureServer, NO_CHANGES, upstreamSetup, WELL } from "../_signed_upstreams.ts";

/** `x` lists an extra tool `y_echo`: mcp_x_y_echo, the name of server `x_y`'s `echo` too. */
const X: FixtureServer = {
  name: "x",
  fixture: "well_behaved",
  args: ["--changes", "add-tool:y_echo"],
};
const X_Y: FixtureServer = { name: "x_y", fixture: "well_behaved" };

/** `FILE:LINE` of the `name:` of the config's first server entry. */
async function entryLine(dir: string): Promise<string> {
  const file = `${dir}/config/engram.yaml`;
  const lines = (await Deno.readTextFile(file)).split("\n");
  return `${file}:${lines.findIndex((l) => l.trim().startsWith("- name:")) + 1}`;
}

type Row = { server: string; name: string; exposed_as: string | null; detail: string };

async function exposure(run: (args: string[]) => Promise<{ code: number; stdout: string }>) {
  const r = await run(["exposure", "--json"]);
  assert.equal(r.code, 0);
  const rows = JSON.parse(r.stdout) as (Row & { tiers: { read: { reason: string | null } } })[];
  return (server: string, name: string) => {
    const row = rows.find((x) => x.server === server && x.name === name);
    assert.ok(row, `${server} ${name} listed`);
    return { as: row.exposed_as, read: row.tiers.read.reason ?? "visible", detail: row.detail };
  };
}

Deno.test("approve without --expose says the tool is not offered to agents until exposed, and how", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  const r = await s.run(["approvals", "approve", "files", "echo"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    "approved tool files echo\n" +
      `not offered to agents until exposed (echo): engram mcp approvals approve files echo --expose read|write|admin, or set expose: { tier: read } in its entry at ${await entryLine(
        s.dir,
      )}\n`,
  );
  const exposed = await s.run(["approvals", "approve", "files", "add", "--expose", "read"]);
  assert.equal(exposed.stdout, "approved tool files add (exposed to agents at tier read)\n");
});

Deno.test("approve: a tier set by the server's expose: in the config counts as exposed", async () => {
  await using s = await upstreamSetup([{ ...WELL, extra: ["expose: { tier: read }"] }], {
    env: NO_CHANGES,
  });
  const r = await s.run(["approvals", "approve", "files", "echo"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "approved tool files echo (exposed to agents at tier read)\n");
});

Deno.test("discover's hint says approving alone offers nothing to agents, and both ways to expose", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  const r = await s.run(["discover", "files"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(
      `\\d+ to review: engram mcp approvals diff files NAME, then engram mcp approvals approve files NAME --expose read\\|write\\|admin \\(an approved tool is not offered to agents until exposed: --expose, or expose: \\{ tier: read \\} in its entry at ${
        (await entryLine(s.dir)).replaceAll(".", "\\.")
      }\\)\\n$`,
    ),
  );
});

Deno.test("a collision of exposed names is reported with its fix and settled with --as, which an agent then calls", async () => {
  await using s = await upstreamSetup([X, X_Y]);
  await s.approve("x", { y_echo: "read" });
  const second = await s.run(["approvals", "approve", "x_y", "echo", "--expose", "read"]);
  assert.equal(second.code, 0, second.stderr);
  const fix = "engram mcp approvals approve x_y echo --as mcp_NEW_NAME";
  assert.equal(
    second.stderr,
    `tool x_y echo is not offered to agents: its exposed name mcp_x_y_echo is taken by x y_echo; expose it under another name with: ${fix}\n`,
  );
  let at = await exposure(s.run);
  assert.deepEqual(at("x_y", "echo").read, "collision");
  assert.ok(at("x_y", "echo").detail.endsWith(fix));

  const named = await s.run(["approvals", "approve", "x_y", "echo", "--as", "mcp_xy_echo"]);
  assert.equal(named.code, 0, named.stderr);
  assert.equal(named.stderr, "");
  assert.equal(
    named.stdout,
    "approved tool x_y echo (exposed to agents at tier read as mcp_xy_echo)\n",
  );
  at = await exposure(s.run);
  assert.deepEqual([at("x_y", "echo").as, at("x_y", "echo").read], ["mcp_xy_echo", "visible"]);
  assert.deepEqual([at("x", "y_echo").as, at("x", "y_echo").read], ["mcp_x_y_echo", "visible"]);
  // Kept in the database approval, and carried through the lockfile both ways.
  const list = JSON.parse((await s.run(["approvals", "list", "x_y", "--json"])).stdout) as {
    name: string;
    expose_as?: string;
  }[];
  assert.equal(list.find((a) => a.name === "echo")?.expose_as, "mcp_xy_echo");
  assert.equal((await s.run(["approvals", "export", "lock.json"])).code, 0);
  const lock = JSON.parse(await Deno.readTextFile(`${s.dir}/lock.json`));
  assert.equal(lock.servers.x_y["tool:echo"].as, "mcp_xy_echo");
  assert.equal("as" in lock.servers.x["tool:y_echo"], false, "written only when set");
  // Approving again without --as keeps the name.
  await s.approve("x_y", { echo: "read" });
  assert.equal((await exposure(s.run))("x_y", "echo").as, "mcp_xy_echo");

  await using agent = await connectStdio(s.dir);
  const names = (await agent.client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes("mcp_xy_echo") && names.includes("mcp_x_y_echo"), names.join(", "));
  const reply = await agent.client.callTool({ name: "mcp_xy_echo", arguments: { text: "hi" } });
  assert.equal(resultText(reply), "echo: hi");
});

Deno.test("--as is kept in mcp.approvals_lock's lockfile, and read back from it", async () => {
  await using s = await upstreamSetup([WELL], {
    mcpExtra: ["approvals_lock: ../mcp-lock.json"],
    env: NO_CHANGES,
  });
  const r = await s.run([
    "approvals",
    "approve",
    "files",
    "echo",
    "--expose",
    "read",
    "--as",
    "mcp_echo",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const lock = JSON.parse(await Deno.readTextFile(`${s.dir}/mcp-lock.json`));
  assert.equal(lock.servers.files["tool:echo"].as, "mcp_echo");
  assert.equal((await exposure(s.run))("files", "echo").as, "mcp_echo");
  // A name that breaks the rule in the lockfile is refused with its line.
  lock.servers.files["tool:echo"].as = "echo";
  await Deno.writeTextFile(`${s.dir}/mcp-lock.json`, JSON.stringify(lock, null, 2));
  const bad = await s.run(["exposure"]);
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /lockfile \S+mcp-lock\.json:\d+ key servers\.files\.tool:echo\.as: must start with mcp_/,
  );
});

Deno.test("--as refusals: a bad name, with --all-pending, on a prompt, and a name another tool holds", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  assertFails(
    await s.run(["approvals", "approve", "files", "echo", "--as", "echo tool"]),
    2,
    'engram: --as "echo tool" is not an exposed tool name: it must start with mcp_ and be at most 64 of A-Z a-z 0-9 _ - (e.g. mcp_docs_search)',
  );
  assertFails(
    await s.run(["approvals", "approve", "files", "--all-pending", "--yes", "--as", "mcp_a"]),
    2,
    "engram: --as names one tool: give NAME, not --all-pending",
  );
  assertFails(
    await s.run(["approvals", "approve", "files", "greet", "--as", "mcp_greet"]),
    2,
    "engram: --as applies to tools only; prompt files greet is not offered to agents",
  );
  await s.approve("files", { add: "read" });
  assertFails(
    await s.run(["approvals", "approve", "files", "echo", "--as", "mcp_files_add"]),
    1,
    "engram: conflict: mcp_files_add is already the exposed name of files add; choose another --as",
  );
  await s.run(["approvals", "approve", "files", "slow", "--as", "mcp_slow"]);
  assertFails(
    await s.run(["approvals", "approve", "files", "echo", "--as", "mcp_slow"]),
    1,
    "engram: conflict: mcp_slow is already the exposed name of files slow; choose another --as",
  );
  const states = JSON.parse((await s.run(["approvals", "list", "files", "--json"])).stdout) as {
    name: string;
    state: string;
  }[];
  assert.equal(states.find((a) => a.name === "echo")?.state, "pending", "nothing approved");
});
