/** @module What a launch will need beyond its entry: network for package runners, standard for host paths. */
import assert from "node:assert/strict";
import { parseImport } from "../../../../src/mcp/client/import/config_import.ts";
import { launchNeeds, type LaunchShape } from "../../../../src/mcp/client/import/launch_needs.ts";

const AT = { dataDir: "/var/lib/engram", home: "/home/u" };

/** The needs of `command args` as an imported server (restricted, no network). */
function needs(command: string, args: string[], extra: Partial<LaunchShape> = {}) {
  return launchNeeds({ name: "s", command, args, ...extra }, AT).map((n) => [n.kind, n.fix]);
}

const NETWORK = ["network", "engram mcp review s --network"];
const STANDARD = (kind: string) => [kind, "engram mcp review s --sandbox standard"];

Deno.test("launch needs: every package runner needs network on its first start", () => {
  for (
    const [command, args] of [
      ["npx", ["-y", "@modelcontextprotocol/server-everything"]],
      ["/usr/local/bin/npx", ["pkg"]],
      ["pnpx", ["pkg"]],
      ["bunx", ["pkg"]],
      ["uvx", ["mcp-server-fetch"]],
      ["pipx", ["run", "mcp-server-time"]],
      ["uv", ["tool", "run", "mcp-server-git"]],
      ["pnpm", ["dlx", "pkg"]],
      ["npm", ["exec", "pkg"]],
      ["deno", ["run", "-A", "npm:@modelcontextprotocol/server-memory"]],
      ["deno", ["run", "jsr:@x/server"]],
      ["deno", ["run", "https://example.com/server.ts"]],
    ] as [string, string[]][]
  ) {
    assert.deepEqual(needs(command, args), [NETWORK], `${command} ${args.join(" ")}`);
  }
  const [npx] = launchNeeds({ name: "s", command: "npx", args: ["-y", "pkg"] }, AT);
  assert.equal(npx.detail, "npx -y fetches the package on its first start, and network is off");
  const [pipx] = launchNeeds({ name: "s", command: "pipx", args: ["run", "x"] }, AT);
  assert.match(pipx.detail, /^pipx run fetches/);
});

Deno.test("launch needs: nothing fetched, or network already on, needs nothing", () => {
  for (
    const [command, args] of [
      ["node", ["server.js"]],
      ["deno", ["run", "--cached-only", "npm:@modelcontextprotocol/server-everything@2025.1.1"]],
      ["deno", ["run", "server.ts"]],
      ["pipx", ["list"]],
      ["npm", ["start"]],
      ["python3", ["-m", "server"]],
    ] as [string, string[]][]
  ) {
    assert.deepEqual(needs(command, args), [], `${command} ${args.join(" ")}`);
  }
  assert.deepEqual(needs("npx", ["-y", "pkg"], { network: true }), []);
});

Deno.test("launch needs: a host path the restricted sandbox hides needs standard; visible ones do not", () => {
  assert.deepEqual(needs("node", ["/srv/server.js"]), [STANDARD("host_path")]);
  assert.deepEqual(needs("mcp-fs", ["~/notes"]), [STANDARD("host_path")]);
  assert.deepEqual(needs("mcp-fs", ["--root=/home/u/notes"]), [STANDARD("host_path")]);
  const [paths] = launchNeeds(
    { name: "s", command: "mcp-fs", args: ["~/notes", "/data/x", "/usr/share/doc"] },
    AT,
  );
  assert.equal(
    paths.detail,
    "arguments /home/u/notes, /data/x name host paths the restricted sandbox hides",
  );
  // System folders, the server's own sandbox and its cwd are shown inside.
  assert.deepEqual(needs("node", ["/usr/lib/node_modules/x/index.js"]), []);
  assert.deepEqual(needs("node", ["/var/lib/engram/sandboxes/s/x.js"]), []);
  assert.deepEqual(needs("node", ["/srv/app/server.js"], { cwd: "/srv/app" }), []);
  assert.deepEqual(needs("node", ["/srv/server.js"], { sandbox_profile: "standard" }), []);
  // Without a home to expand it, a ~ path is still a host path.
  assert.equal(
    launchNeeds({ name: "s", command: "x", args: ["~/n"] }, { dataDir: "/d" })[0].detail,
    "argument ~/n names a host path the restricted sandbox hides",
  );
});

Deno.test("launch needs: a container runtime needs standard; needs add up", () => {
  assert.deepEqual(needs("docker", ["run", "-i", "--rm", "mcp/fetch"]), [STANDARD("standard")]);
  assert.deepEqual(needs("npx", ["-y", "@modelcontextprotocol/server-filesystem", "/home/u"]), [
    NETWORK,
    STANDARD("host_path"),
  ]);
  assert.deepEqual(launchNeeds({ name: "s", command: ["npx", "x"], args: [] }, AT), []);
});

Deno.test("import: each imported stdio server lists its launch needs; http servers none", () => {
  const report = parseImport(
    JSON.stringify({
      mcpServers: {
        files: { command: "npx -y @modelcontextprotocol/server-filesystem ~/notes" },
        local: { command: "node", args: ["server.js"] },
        remote: { type: "http", url: "https://example.com/mcp" },
      },
    }),
    { file: "/x/claude.json", launch: { dataDir: "/d", home: "/home/u" } },
  );
  const by = Object.fromEntries(report.servers.map((s) => [s.config.name, s.needs]));
  assert.deepEqual(by.files.map((n) => n.fix), [
    "engram mcp review files --network",
    "engram mcp review files --sandbox standard",
  ]);
  assert.match(by.files[1].detail, /argument \/home\/u\/notes names a host path/);
  assert.deepEqual(by.local, []);
  assert.deepEqual(by.remote, []);
});
