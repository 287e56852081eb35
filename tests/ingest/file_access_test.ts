import assert from "node:assert/strict";
import { EngramError } from "../../src/core/errors.ts";
import { readCheckedFile } from "../../src/ingest/checked_read.ts";
import {
  checkFile,
  ingestPathFor,
  MAX_FILE_BYTES,
  vanishedOr,
} from "../../src/ingest/file_access.ts";
import { tempDir } from "../helpers.ts";

/**
 * A temp layout: `notes/` (the allowed root, with a.md, sub/b.txt and a sub/deep/ folder) and a
 * sibling `outside/` holding secret.md. Paths are real (symlink-free) so they compare exactly.
 */
async function layout() {
  const dir = await tempDir();
  const base = await Deno.realPath(dir.path);
  const root = `${base}/notes`;
  const outside = `${base}/outside`;
  await Deno.mkdir(`${root}/sub/deep`, { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${root}/a.md`, "# A\n");
  await Deno.writeTextFile(`${root}/sub/b.txt`, "bee\n");
  await Deno.writeTextFile(`${outside}/secret.md`, "# Secret\n");
  return { dir, base, root, outside, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

async function rejects(
  fn: () => Promise<unknown>,
  code: string,
  message: RegExp | string,
): Promise<void> {
  await assert.rejects(fn, (err: unknown) => {
    assert.ok(err instanceof EngramError, `expected an EngramError, got ${err}`);
    assert.equal(err.code, code, err.message);
    if (typeof message === "string") assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

Deno.test("checkFile accepts a file under a root, absolute or relative to cwd", async () => {
  await using l = await layout();
  const opts = { roots: [l.root], cwd: l.base };
  assert.deepEqual(await checkFile(`${l.root}/a.md`, opts), {
    realPath: `${l.root}/a.md`,
    size: 4,
    root: l.root,
  });
  assert.deepEqual(await checkFile("notes/sub/b.txt", opts), {
    realPath: `${l.root}/sub/b.txt`,
    size: 4,
    root: l.root,
  });
  assert.equal((await checkFile("b.txt", { roots: [l.root], cwd: `${l.root}/sub` })).size, 4);
});

Deno.test("checkFile: a root given with a trailing slash or through a link still matches", async () => {
  await using l = await layout();
  await Deno.symlink(l.root, `${l.base}/notes-link`);
  for (const root of [`${l.root}/`, `${l.base}/notes-link`]) {
    const f = await checkFile(`${l.root}/a.md`, { roots: [root], cwd: l.base });
    assert.equal(f.realPath, `${l.root}/a.md`);
    assert.equal(f.root, l.root);
  }
});

Deno.test("checkFile: a sibling folder sharing the root's name prefix is outside", async () => {
  await using l = await layout();
  await Deno.mkdir(`${l.base}/notes-private`);
  await Deno.writeTextFile(`${l.base}/notes-private/x.md`, "x");
  await rejects(
    () => checkFile(`${l.base}/notes-private/x.md`, { roots: [l.root], cwd: l.base }),
    "forbidden",
    `${l.base}/notes-private/x.md is outside the allowed file roots (${l.root}); to allow it, add the folder holding ${l.base}/notes-private/x.md to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`,
  );
});

Deno.test("checkFile refuses a file outside the roots, naming the roots and the fix", async () => {
  await using l = await layout();
  await rejects(
    () => checkFile(`${l.outside}/secret.md`, { roots: [l.root], cwd: l.base }),
    "forbidden",
    `${l.outside}/secret.md is outside the allowed file roots (${l.root}); to allow it, add the folder holding ${l.outside}/secret.md to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`,
  );
});

Deno.test("checkFile refuses a `..` escape and says where the path really goes", async () => {
  await using l = await layout();
  const path = `${l.root}/../outside/secret.md`;
  await rejects(
    () => checkFile(path, { roots: [l.root], cwd: l.base }),
    "forbidden",
    `${path} (it resolves to ${l.outside}/secret.md) is outside the allowed file roots (${l.root}); to allow it, add the folder holding ${path} to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`,
  );
  await rejects(
    () => checkFile("../outside/secret.md", { roots: [l.root], cwd: l.root }),
    "forbidden",
    /^\.\.\/outside\/secret\.md \(it resolves to .*\/outside\/secret\.md\) is outside/,
  );
});

Deno.test("checkFile refuses a link inside the root that points outside it", async () => {
  await using l = await layout();
  await Deno.symlink(`${l.outside}/secret.md`, `${l.root}/innocent.md`);
  await Deno.symlink(l.outside, `${l.root}/linked-dir`);
  await rejects(
    () => checkFile(`${l.root}/innocent.md`, { roots: [l.root], cwd: l.base }),
    "forbidden",
    `${l.root}/innocent.md (it resolves to ${l.outside}/secret.md) is outside the allowed file roots (${l.root}); to allow it, add the folder holding ${l.root}/innocent.md to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`,
  );
  await rejects(
    () => checkFile(`${l.root}/linked-dir/secret.md`, { roots: [l.root], cwd: l.base }),
    "forbidden",
    /\(it resolves to .*\/outside\/secret\.md\) is outside the allowed file roots/,
  );
});

Deno.test("checkFile allows a link inside the root that points inside it, reporting the target", async () => {
  await using l = await layout();
  await Deno.symlink(`${l.root}/sub/b.txt`, `${l.root}/alias.txt`);
  const f = await checkFile(`${l.root}/alias.txt`, { roots: [l.root], cwd: l.base });
  assert.deepEqual(f, { realPath: `${l.root}/sub/b.txt`, size: 4, root: l.root });
});

Deno.test("checkFile: a missing file under a root is not_found; a broken link too", async () => {
  await using l = await layout();
  await rejects(
    () => checkFile(`${l.root}/nope.md`, { roots: [l.root], cwd: l.base }),
    "not_found",
    `file ${l.root}/nope.md does not exist (or is a broken link)`,
  );
  await Deno.symlink(`${l.root}/gone.md`, `${l.root}/dangling.md`);
  await rejects(
    () => checkFile(`${l.root}/dangling.md`, { roots: [l.root], cwd: l.base }),
    "not_found",
    `file ${l.root}/dangling.md does not exist (or is a broken link)`,
  );
});

Deno.test("checkFile: a missing file outside the roots is forbidden, so existence cannot be probed", async () => {
  await using l = await layout();
  for (const path of [`${l.outside}/nope.md`, `${l.root}/../outside/nope.md`]) {
    await rejects(
      () => checkFile(path, { roots: [l.root], cwd: l.base }),
      "forbidden",
      `${path} is outside the allowed file roots (${l.root}); to allow it, add the folder holding ${path} to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`,
    );
  }
});

Deno.test("checkFile refuses a directory and points to engram ingest for folders", async () => {
  await using l = await layout();
  await rejects(
    () => checkFile(`${l.root}/sub`, { roots: [l.root], cwd: l.base }),
    "invalid_argument",
    `${l.root}/sub is a directory; give one file (engram ingest DIR walks a whole folder)`,
  );
  await rejects(
    () => checkFile(l.root, { roots: [l.root], cwd: l.base }),
    "invalid_argument",
    /is a directory/,
  );
});

Deno.test("checkFile: exactly 25 MiB is accepted, one byte more is file_too_large", async () => {
  await using l = await layout();
  const path = `${l.root}/big.log`;
  await Deno.writeFile(path, new Uint8Array());
  await Deno.truncate(path, MAX_FILE_BYTES);
  assert.equal(MAX_FILE_BYTES, 25 * 1024 * 1024);
  assert.equal((await checkFile(path, { roots: [l.root], cwd: l.base })).size, MAX_FILE_BYTES);
  await Deno.truncate(path, MAX_FILE_BYTES + 1);
  await rejects(
    () => checkFile(path, { roots: [l.root], cwd: l.base }),
    "file_too_large",
    `${path} is 25.0 MiB; the limit is 25 MiB — split it or ingest a smaller export`,
  );
});

Deno.test("checkFile with no roots configured refuses everything and says how to configure them", async () => {
  await using l = await layout();
  for (const path of [`${l.root}/a.md`, `${l.root}/missing.md`]) {
    await rejects(
      () => checkFile(path, { roots: [], cwd: l.base }),
      "forbidden",
      `reading files is off: no file roots are allowed in this session; to allow it, add the folder holding ${path} to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`,
    );
  }
});

Deno.test("checkFile with roots: null (the operator's CLI) reads anywhere and reports no root", async () => {
  await using l = await layout();
  assert.deepEqual(await checkFile(`${l.outside}/secret.md`, { roots: null, cwd: l.base }), {
    realPath: `${l.outside}/secret.md`,
    size: 9,
    root: null,
  });
  await rejects(
    () => checkFile(`${l.outside}/nope.md`, { roots: null, cwd: l.base }),
    "not_found",
    /does not exist/,
  );
});

Deno.test("checkFile: a root that does not exist allows nothing under it", async () => {
  await using l = await layout();
  await rejects(
    () => checkFile(`${l.root}/a.md`, { roots: [`${l.base}/missing-root`], cwd: l.base }),
    "forbidden",
    /is outside the allowed file roots/,
  );
  // The other, existing root still works.
  const f = await checkFile(`${l.root}/a.md`, {
    roots: [`${l.base}/missing-root`, l.root],
    cwd: l.base,
  });
  assert.equal(f.root, l.root);
});

Deno.test("ingestPathFor: /ingest/<root folder name>/<path below the root>", () => {
  assert.equal(
    ingestPathFor({ realPath: "/home/u/notes/sub/b.txt", size: 1, root: "/home/u/notes" }),
    "/ingest/notes/sub/b.txt",
  );
  assert.equal(
    ingestPathFor({ realPath: "/home/u/notes/a.md", size: 1, root: "/home/u/notes/" }),
    "/ingest/notes/a.md",
  );
  assert.equal(
    ingestPathFor({ realPath: "/home/u/Заметки/日記.md", size: 1, root: "/home/u/Заметки" }),
    "/ingest/Заметки/日記.md",
  );
});

Deno.test("ingestPathFor without a root: /ingest/<file name>", () => {
  assert.equal(
    ingestPathFor({ realPath: "/tmp/x/report.pdf", size: 1, root: null }),
    "/ingest/report.pdf",
  );
});

Deno.test("a file removed after a check passed is not_found, not internal (vanishedOr)", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/gone.md`;
  await Deno.writeTextFile(file, "# soon gone\n");
  await Deno.remove(file);
  // The very error the second look of checkFile and readCheckedFile gets when the file went away.
  const err = await Deno.stat(file).then(() => undefined, (e) => e);
  const gone = vanishedOr(err, "notes/gone.md");
  assert.equal(gone.code, "not_found");
  assert.equal(gone.message, "file notes/gone.md was removed while it was being checked");
  const other = vanishedOr(new Deno.errors.PermissionDenied("EACCES"), "notes/x.md");
  assert.equal(other.code, "forbidden");
  assert.match(other.message, /cannot read notes\/x\.md: EACCES/);
});

Deno.test("a file removed between checkFile and the read is not_found", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/a.md`, "# a\n");
  const checked = await checkFile("a.md", { roots: [dir.path], cwd: dir.path });
  await Deno.remove(`${dir.path}/a.md`);
  await assert.rejects(readCheckedFile(checked, "a.md"), (err: unknown) => {
    assert.ok(err instanceof EngramError);
    assert.equal(err.code, "not_found");
    return true;
  });
});
