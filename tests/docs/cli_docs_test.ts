/**
 * @module docs/cli.md cannot drift from the CLI: every command in `COMMANDS` (src/cli/app.ts), every
 * subcommand and every flag of every `CommandSpec` exported under src/cli/commands/, and the
 * options every command takes, must be documented there — each command under its own heading
 * (`## engram search`, `### engram mcp servers`) and each flag as inline code in that section —
 * and no `engram …` heading may name a command the CLI does not have.
 */
import assert from "node:assert/strict";
import { type CommandSpec, GLOBAL_OPTIONS } from "../../src/cli/args.ts";

const ROOT = new URL("../../", import.meta.url);
const COMMANDS_DIR = new URL("src/cli/commands/", ROOT);
const CLI_DOC = new URL("docs/cli.md", ROOT);

/** The top-level command words, read from the `COMMANDS` table of src/cli/app.ts. */
async function topLevelCommands(): Promise<string[]> {
  const source = await Deno.readTextFile(new URL("src/cli/app.ts", ROOT));
  const table = source.match(/const COMMANDS\b[^{]*\{\n([\s\S]*?)\n\};/);
  assert.ok(table, "src/cli/app.ts has no COMMANDS table");
  return [...table[1].matchAll(/^\s*"?([a-z][a-z-]*)"?:\s*async/gm)].map((m) => m[1]);
}

/** Every .ts file under `dir`, recursively. */
async function tsFiles(dir: URL): Promise<URL[]> {
  const out: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.isDirectory ? `${entry.name}/` : entry.name, dir);
    if (entry.isDirectory) out.push(...await tsFiles(url));
    else if (entry.name.endsWith(".ts")) out.push(url);
  }
  return out;
}

function isSpec(value: unknown): value is CommandSpec {
  const v = value as Partial<CommandSpec> | null;
  return typeof v === "object" && v !== null && typeof v.name === "string" &&
    typeof v.usage === "string" && typeof v.options === "object" && Array.isArray(v.positionals);
}

/** Every CommandSpec the command modules export, by name (`search`, `mcp approvals`). */
async function commandSpecs(): Promise<Map<string, CommandSpec>> {
  const specs = new Map<string, CommandSpec>();
  for (const file of await tsFiles(COMMANDS_DIR)) {
    const module = await import(file.href);
    for (const value of Object.values(module)) {
      if (isSpec(value)) specs.set(value.name, value);
    }
  }
  return specs;
}

/** A `##`/`###` section of a markdown page: its heading text and its body up to the next one. */
interface Section {
  level: number;
  heading: string;
  body: string;
}

/** The page's `##` and `###` sections; lines inside code fences are never headings. */
function sections(markdown: string): Section[] {
  const out: Section[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : line.match(/^(#{2,3}) (.+?)\s*$/);
    if (heading) out.push({ level: heading[1].length, heading: heading[2], body: "" });
    else if (out.length) out[out.length - 1].body += `${line}\n`;
  }
  return out;
}

/** Whether `text` writes `--flag` as inline code: `` `--flag` ``, `` `--flag N` ``, `` `--flag=…` ``. */
function hasInlineFlag(text: string, flag: string): boolean {
  const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`\`${escaped}(?=[\`\\s=])`).test(text);
}

/** What the CLI knows: top-level commands, specs, and each spec's flags. */
interface CliSurface {
  commands: string[];
  specs: CommandSpec[];
}

/** Everything `doc` fails to document of `cli`, one line each; empty when it is complete. */
function undocumented(doc: string, cli: CliSurface): string[] {
  const all = sections(doc);
  const byHeading = new Map(all.map((s) => [`${"#".repeat(s.level)} ${s.heading}`, s]));
  const problems: string[] = [];
  for (const command of cli.commands) {
    if (!byHeading.has(`## engram ${command}`)) {
      problems.push(`command "engram ${command}" has no "## engram ${command}" heading`);
    }
  }
  for (const spec of cli.specs) {
    const level = spec.name.includes(" ") ? "###" : "##";
    const heading = `${level} engram ${spec.name}`;
    const section = byHeading.get(heading);
    if (!section) {
      problems.push(`command "engram ${spec.name}" has no "${heading}" heading`);
      continue;
    }
    for (const option of Object.keys(spec.options)) {
      if (!hasInlineFlag(section.body, `--${option}`)) {
        problems.push(`engram ${spec.name}: flag --${option} is not written as inline code`);
      }
    }
  }
  for (const option of Object.keys(GLOBAL_OPTIONS)) {
    if (!hasInlineFlag(doc, `--${option}`)) {
      problems.push(`option --${option} (every command takes it) is not documented`);
    }
  }
  const known = new Set([...cli.commands, ...cli.specs.map((s) => s.name)]);
  for (const s of all) {
    const named = s.heading.match(/^engram (.+)$/);
    if (named && !known.has(named[1])) {
      problems.push(`heading "${s.heading}" names no command the CLI has`);
    }
  }
  return problems;
}

/** The CLI's commands and specs, checked to be the real, non-trivial set. */
async function cliSurface(): Promise<CliSurface> {
  const commands = await topLevelCommands();
  const specs = [...(await commandSpecs()).values()];
  return { commands, specs };
}

Deno.test("the CLI surface collected from COMMANDS and the CommandSpecs is the whole CLI", async () => {
  const { commands, specs } = await cliSurface();
  for (const known of ["stdio", "serve", "search", "brains", "tokens", "mcp", "version"]) {
    assert.ok(commands.includes(known), `COMMANDS lacks ${known}: ${commands.join(", ")}`);
  }
  assert.ok(commands.length >= 20, `only ${commands.length} commands: ${commands.join(", ")}`);
  const names = new Set(specs.map((s) => s.name));
  // Every command has a spec of its own, or (a group) specs for its subcommands.
  for (const command of commands) {
    assert.ok(
      names.has(command) || specs.some((s) => s.name.startsWith(`${command} `)),
      `no CommandSpec found for engram ${command}`,
    );
  }
  // Every spec belongs to a command the CLI dispatches to.
  for (const spec of specs) {
    assert.ok(commands.includes(spec.name.split(" ")[0]), `spec ${spec.name} has no command`);
  }
  for (const sub of ["mcp servers", "mcp approvals", "brains delete", "tokens create"]) {
    assert.ok(names.has(sub), `no spec for engram ${sub}`);
  }
  const flags = specs.flatMap((s) => Object.keys(s.options).map((o) => `${s.name} --${o}`));
  assert.ok(flags.length > 80, `only ${flags.length} flags collected`);
  for (const flag of ["stdio --tier", "search --top-k", "mcp approvals --expose", "ingest --as"]) {
    assert.ok(flags.includes(flag), `flag ${flag} not collected`);
  }
});

Deno.test("docs/cli.md documents every command, subcommand and flag, and nothing else", async () => {
  const problems = undocumented(await Deno.readTextFile(CLI_DOC), await cliSurface());
  assert.deepEqual(problems, [], `docs/cli.md is out of date:\n${problems.join("\n")}`);
});

Deno.test("the check names a flag, a command and a stale heading it cannot find", async () => {
  const cli = await cliSurface();
  const doc = await Deno.readTextFile(CLI_DOC);
  const broken = doc.replaceAll("`--top-k", "`--top")
    .replace("## engram backup\n", "## engram backups\n");
  const problems = undocumented(broken, cli);
  assert.ok(
    problems.includes("engram search: flag --top-k is not written as inline code"),
    problems.join("\n"),
  );
  assert.ok(problems.includes('command "engram backup" has no "## engram backup" heading'));
  assert.ok(problems.includes('heading "engram backups" names no command the CLI has'));
});
