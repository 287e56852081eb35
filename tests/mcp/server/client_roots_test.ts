import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { ListRootsRequestSchema } from "../../../src/mcp/sdk.ts";
import { Client, StdioClientTransport } from "../../../src/mcp/sdk_client.ts";
import {
  callErr,
  callOk,
  connectLikeAClient,
  engramCommandArgs,
  engramEnv,
  tempDir,
} from "../../helpers.ts";

type Roots = { uri: string; name?: string }[];

/** The refusal's tail: both ways to allow a path. */
const allow = (path: string) =>
  `to allow it, add the folder holding ${path} to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`;

const uri = (path: string) => pathToFileURL(path).href;

/** Folders projA/, projB/, conf/, outside/ and home/, each holding one note; paths are real. */
async function workspace() {
  const dir = await tempDir();
  const base = await Deno.realPath(dir.path);
  const note: Record<string, string> = {};
  for (const name of ["projA", "projB", "conf", "outside", "home"]) {
    await Deno.mkdir(`${base}/${name}`);
    note[name] = `${base}/${name}/${name.toLowerCase()}.md`;
    await Deno.writeTextFile(note[name], `# ${name}\n\nA note in ${name}.\n`);
  }
  return { base, note, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

/**
 * A write-tier `engram stdio` whose SDK client declares `roots` and answers `roots/list` with
 * `answer()`. `asked()` resolves at the next roots/list the server sends; `logged(text)` when
 * stderr shows `text`.
 */
async function rootsSession(
  base: string,
  o: { answer: () => Roots | Promise<Roots>; args?: string[]; env?: Record<string, string> },
) {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: engramCommandArgs(["stdio", "--tier", "write", ...(o.args ?? [])]),
    env: engramEnv(base, o.env),
    cwd: base,
    stderr: "pipe",
  });
  let stderr = "";
  const watchers: { text: string; resolve: () => void }[] = [];
  transport.stderr?.on("data", (d: Uint8Array) => {
    stderr += new TextDecoder().decode(d);
    for (const w of watchers.filter((w) => stderr.includes(w.text))) w.resolve();
  });
  let onAsked: (() => void) | undefined;
  const client = new Client(
    { name: "roots-test", version: "1.0.0" },
    { capabilities: { roots: { listChanged: true } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    onAsked?.();
    return { roots: await o.answer() };
  });
  await connectLikeAClient(client, transport);
  return {
    client,
    /** Resolves at the next roots/list; call before whatever should trigger it. */
    asked(): Promise<void> {
      return new Promise((resolve) => (onAsked = resolve));
    },
    /** Fails after 15 s with the whole stderr, rather than hanging the suite. */
    async logged(text: string): Promise<void> {
      if (stderr.includes(text)) return;
      const seen = Promise.withResolvers<void>();
      watchers.push({ text, resolve: seen.resolve });
      const timer = setTimeout(
        () => seen.reject(new Error(`stderr never showed ${JSON.stringify(text)}:\n${stderr}`)),
        15_000,
      );
      await seen.promise.finally(() => clearTimeout(timer));
    },
    [Symbol.asyncDispose]: () => client.close(),
  };
}

/** Writes a config allowing `<base>/conf` and returns the stdio arguments that load it. */
async function configuredRoot(base: string): Promise<string[]> {
  const config = `${base}/engram.yaml`;
  await Deno.writeTextFile(
    config,
    `mcp:\n  allowed_file_roots: [${JSON.stringify(`${base}/conf`)}]\n`,
  );
  return ["--config", config];
}

const ingest = (client: Client, path: string) =>
  callOk<{ path: string }>(client, "memory_ingest_file", { path });

Deno.test("stdio: files under the client's roots ingest, others are refused; list_changed moves the roots", async () => {
  await using w = await workspace();
  const { base, note } = w;
  let roots: Roots = [{ uri: uri(`${base}/projA`), name: "A" }];
  await using s = await rootsSession(base, { answer: () => roots });

  assert.equal((await ingest(s.client, note.projA)).path, "/ingest/projA/proja.md");
  for (const path of [note.outside, note.projB]) {
    const e = await callErr(s.client, "memory_ingest_file", { path });
    assert.equal(e.code, "forbidden");
    assert.equal(
      e.message,
      `${path} is outside the allowed file roots (${base}/projA); ${allow(path)}`,
    );
  }
  await s.logged(`client shares file roots: ${base}/projA`);

  roots = [{ uri: uri(`${base}/projB`) }];
  const asked = s.asked();
  await s.client.sendRootsListChanged();
  await asked;
  assert.equal((await ingest(s.client, note.projB)).path, "/ingest/projB/projb.md");
  const old = await callErr(s.client, "memory_ingest_file", { path: note.projA });
  assert.equal(old.code, "forbidden");
  assert.equal(
    old.message,
    `${note.projA} is outside the allowed file roots (${base}/projB); ${allow(note.projA)}`,
  );
  await s.logged(`client shares file roots: ${base}/projB`);
});

Deno.test("stdio: client roots add to the configured ones", async () => {
  await using w = await workspace();
  const { base, note } = w;
  await using s = await rootsSession(base, {
    answer: () => [{ uri: uri(`${base}/projA`) }],
    args: await configuredRoot(base),
  });
  assert.equal((await ingest(s.client, note.conf)).path, "/ingest/conf/conf.md");
  assert.equal((await ingest(s.client, note.projA)).path, "/ingest/projA/proja.md");
  const e = await callErr(s.client, "memory_ingest_file", { path: note.outside });
  assert.equal(
    e.message,
    `${note.outside} is outside the allowed file roots (${base}/conf, ${base}/projA); ${
      allow(note.outside)
    }`,
  );
});

Deno.test("stdio: roots of /, the home directory, other schemes and bad file URIs are ignored, each logged", async () => {
  await using w = await workspace();
  const { base, note } = w;
  const home = `${base}/home`;
  // HOME moves; Deno still needs its module cache.
  const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  const denoDir = (JSON.parse(new TextDecoder().decode(info.stdout)) as { denoDir: string })
    .denoDir;
  const bad = [
    "file:///",
    uri(home),
    `${uri(home)}/`,
    "https://example.com/repo",
    "file://otherhost/x",
  ];
  // One usable root among them: a bad root costs only itself.
  await using s = await rootsSession(base, {
    answer: () => [...bad, uri(`${base}/projA`)].map((u) => ({ uri: u })),
    env: { HOME: home, DENO_DIR: denoDir },
  });
  assert.equal((await ingest(s.client, note.projA)).path, "/ingest/projA/proja.md");
  for (const path of [note.home, note.outside]) {
    const e = await callErr(s.client, "memory_ingest_file", { path });
    assert.equal(e.code, "forbidden");
    assert.equal(
      e.message,
      `${path} is outside the allowed file roots (${base}/projA); ${allow(path)}`,
    );
  }
  for (
    const line of [
      `ignoring client root "file:///": the whole file system is too broad to follow; share a project folder instead`,
      `ignoring client root "${uri(home)}": the home directory itself is too broad to follow`,
      `ignoring client root "${uri(home)}/": the home directory itself is too broad to follow`,
      `ignoring client root "https://example.com/repo": not a file:// URI`,
      `ignoring client root "file://otherhost/x": File URL host must be "localhost" or empty`,
      `client shares file roots: ${base}/projA\n`,
    ]
  ) await s.logged(line);
});

Deno.test("stdio: a failing roots/list leaves the configured roots and the session working", async () => {
  await using w = await workspace();
  const { base, note } = w;
  await using s = await rootsSession(base, {
    answer: () => Promise.reject(new Error("roots are unavailable")),
    args: await configuredRoot(base),
  });
  assert.equal((await ingest(s.client, note.conf)).path, "/ingest/conf/conf.md");
  assert.equal(
    (await callErr(s.client, "memory_ingest_file", { path: note.projA })).code,
    "forbidden",
  );
  await callOk(s.client, "memory_search", { query: "note" });
  await s.logged("roots/list failed; only mcp.allowed_file_roots apply in this session");
  await s.logged("roots are unavailable");
});

Deno.test("stdio: a roots/list that never answers times out without breaking the session", async () => {
  await using w = await workspace();
  const { base, note } = w;
  const never = Promise.withResolvers<Roots>();
  await using s = await rootsSession(base, {
    answer: () => never.promise,
    args: await configuredRoot(base),
  });
  // The call waits for the pending roots/list (up to its 5 s limit), then goes on without it.
  assert.equal((await ingest(s.client, note.conf)).path, "/ingest/conf/conf.md");
  await s.logged("roots/list failed; only mcp.allowed_file_roots apply in this session");
  await callOk(s.client, "memory_search", { query: "note" });
  never.resolve([]);
});
