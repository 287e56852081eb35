import assert from "node:assert/strict";
import { walkFiles } from "../../src/ingest/walk.ts";
import { tempDir } from "../helpers.ts";
import { writeText } from "../cli/_util.ts";

/** Writes every `rel → text` pair under `dir`. */
async function tree(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) await writeText(dir, rel, text);
}

async function rels(dir: string, options?: Parameters<typeof walkFiles>[1]): Promise<string[]> {
  return (await walkFiles(dir, options)).map((f) => f.rel);
}

Deno.test("walkFiles lists every file below the folder, sorted, with absolute and relative paths", async () => {
  await using dir = await tempDir();
  await tree(dir.path, {
    "b.md": "b",
    "a.md": "a",
    "sub/z.txt": "z",
    "sub/deeper/c.md": "c",
    "Über/ñ.md": "n",
  });
  const files = await walkFiles(dir.path);
  assert.deepEqual(files.map((f) => f.rel), [
    "a.md",
    "b.md",
    "sub/deeper/c.md",
    "sub/z.txt",
    "Über/ñ.md",
  ]);
  for (const f of files) assert.equal(f.path, `${dir.path}/${f.rel}`);
});

Deno.test("walkFiles skips dot-files and dot-folders such as .git and .obsidian", async () => {
  await using dir = await tempDir();
  await tree(dir.path, {
    "note.md": "n",
    ".hidden.md": "h",
    ".git/HEAD": "ref",
    ".git/objects/ab/cdef": "x",
    ".obsidian/workspace.json": "{}",
    "sub/.trash/old.md": "o",
    "sub/kept.md": "k",
  });
  assert.deepEqual(await rels(dir.path), ["note.md", "sub/kept.md"]);
});

Deno.test("walkFiles honours the root .gitignore: files, folders, globs and negation", async () => {
  await using dir = await tempDir();
  await tree(dir.path, {
    ".gitignore": "*.log\nbuild/\ndrafts/*.md\n!drafts/keep.md\n/top-only.md\n",
    "a.md": "a",
    "debug.log": "l",
    "sub/trace.log": "l",
    "build/out.md": "o",
    "sub/build/out.md": "o",
    "drafts/one.md": "d",
    "drafts/keep.md": "k",
    "top-only.md": "t",
    "sub/top-only.md": "t",
  });
  assert.deepEqual(await rels(dir.path), ["a.md", "drafts/keep.md", "sub/top-only.md"]);
});

Deno.test("walkFiles honours a nested .gitignore relative to its own folder", async () => {
  await using dir = await tempDir();
  await tree(dir.path, {
    "secret.md": "root-level secret stays: the nested rule does not apply here",
    "project/.gitignore": "/secret.md\ncache/\n*.tmp\n",
    "project/secret.md": "s",
    "project/readme.md": "r",
    "project/cache/x.md": "c",
    "project/deep/secret.md": "anchored rule: only project/secret.md is ignored",
    "project/deep/y.tmp": "t",
    "other/y.tmp": "not under project",
  });
  assert.deepEqual(await rels(dir.path), [
    "other/y.tmp",
    "project/deep/secret.md",
    "project/readme.md",
    "secret.md",
  ]);
});

Deno.test("walkFiles: glob keeps only matching relative paths, top level included", async () => {
  await using dir = await tempDir();
  await tree(dir.path, {
    "a.md": "a",
    "b.txt": "b",
    "sub/c.md": "c",
    "sub/d.pdf": "d",
    "sub/deep/e.md": "e",
  });
  assert.deepEqual(await rels(dir.path, { glob: "**/*.md" }), [
    "a.md",
    "sub/c.md",
    "sub/deep/e.md",
  ]);
  assert.deepEqual(await rels(dir.path, { glob: "*.md" }), ["a.md"]);
  assert.deepEqual(await rels(dir.path, { glob: "sub/**" }), [
    "sub/c.md",
    "sub/d.pdf",
    "sub/deep/e.md",
  ]);
  assert.deepEqual(await rels(dir.path, { glob: "**/*.docx" }), []);
});

Deno.test("walkFiles: exclude patterns work like .gitignore lines, together with a glob", async () => {
  await using dir = await tempDir();
  await tree(dir.path, {
    "a.md": "a",
    "archive/old.md": "o",
    "sub/archive/older.md": "o",
    "sub/c.md": "c",
    "sub/c.txt": "c",
  });
  assert.deepEqual(await rels(dir.path, { exclude: ["archive/"] }), [
    "a.md",
    "sub/c.md",
    "sub/c.txt",
  ]);
  assert.deepEqual(await rels(dir.path, { exclude: ["/archive", "*.txt"] }), [
    "a.md",
    "sub/archive/older.md",
    "sub/c.md",
  ]);
  assert.deepEqual(await rels(dir.path, { exclude: ["sub/"], glob: "**/*.md" }), [
    "a.md",
    "archive/old.md",
  ]);
});

Deno.test("walkFiles follows a linked folder but skips a link back to a folder being walked", async () => {
  await using dir = await tempDir();
  await tree(dir.path, { "a/x.md": "x", "elsewhere/y.md": "y" });
  await Deno.symlink(dir.path, `${dir.path}/a/loop`);
  await Deno.symlink("..", `${dir.path}/a/up`);
  await Deno.symlink(`${dir.path}/elsewhere`, `${dir.path}/a/linked`);
  assert.deepEqual(await rels(dir.path), ["a/linked/y.md", "a/x.md", "elsewhere/y.md"]);
});

Deno.test("walkFiles on an empty folder returns nothing", async () => {
  await using dir = await tempDir();
  assert.deepEqual(await walkFiles(dir.path), []);
});
