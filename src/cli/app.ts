/** @module The CLI entry: routes a command line to its command and turns errors into exit codes. */
import { EngramError, toEngramError } from "../core/errors.ts";
import { meantName } from "../core/text/edit_distance.ts";
import { VERSION } from "../version.ts";
import type { Command, CommandContext } from "./context.ts";
import { EXIT, exitCodeFor } from "./exit_codes.ts";

/** Each command is loaded on dispatch, so `engram stdio` never loads what `ingest` or `export` need. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  stdio: async () => (await import("./commands/stdio.ts")).stdioCommand,
  serve: async () => (await import("./commands/serve.ts")).serveCommand,
  remember: async () => (await import("./commands/remember.ts")).rememberCommand,
  ingest: async () => (await import("./commands/ingest.ts")).ingestCommand,
  search: async () => (await import("./commands/search.ts")).searchCommand,
  get: async () => (await import("./commands/get.ts")).getCommand,
  list: async () => (await import("./commands/list.ts")).listCommand,
  forget: async () => (await import("./commands/forget.ts")).forgetCommand,
  ask: async () => (await import("./commands/ask.ts")).askCommand,
  pack: async () => (await import("./commands/pack.ts")).packCommand,
  loops: async () => (await import("./commands/loops.ts")).loopsCommand,
  decisions: async () => (await import("./commands/decisions.ts")).decisionsCommand,
  meeting: async () => (await import("./commands/meeting.ts")).meetingCommand,
  consolidate: async () => (await import("./commands/consolidate.ts")).consolidateCommand,
  brains: async () => (await import("./commands/brains/brains.ts")).brainsCommand,
  tokens: async () => (await import("./commands/tokens/tokens.ts")).tokensCommand,
  export: async () => (await import("./commands/export.ts")).exportCommand,
  import: async () => (await import("./commands/import.ts")).importCommand,
  backup: async () => (await import("./commands/backup.ts")).backupCommand,
  restore: async () => (await import("./commands/restore.ts")).restoreCommand,
  migrate: async () => (await import("./commands/migrate.ts")).migrateCommand,
  doctor: async () => (await import("./commands/doctor.ts")).doctorCommand,
  mcp: async () => (await import("./commands/mcp/mcp.ts")).mcpCommand,
  config: async () => (await import("./commands/config.ts")).configCommand,
  version: async () => (await import("./commands/version.ts")).versionCommand,
};

/** Top-level help. */
export const MAIN_HELP = `engram ${VERSION} — local-first memory for AI agents (MCP server)

usage: engram COMMAND [options]

commands:
  stdio                  serve the memory tools over MCP on stdin/stdout
  serve                  serve MCP over HTTP (/mcp, legacy /sse) with bearer tokens
  remember FILE|-        store a markdown document
  ingest PATH|URL...     ingest files, folders (walked) and web pages
  search QUERY           full-text search
  get PATH|ID            print a document (--version N for an earlier one)
  list                   list a brain's documents (--prefix P)
  forget PATH|ID         forget a document (soft delete: its versions stay)
  ask QUESTION           answer a question from memory, with citations
  pack [QUERY]           pack what memory holds into a cited bundle (--budget N tokens)
  loops                  list open tasks, unanswered questions and commitments (--since D)
  decisions [QUERY]      list the decisions memory records, cited
  meeting FILE|-         turn meeting notes or a transcript into decisions and action items
  consolidate            compile summaries, promote recurring facts, prune old episodes
  brains list|create|rename|delete
                         list, create, rename or permanently delete brains
  tokens                 bearer tokens, pairing codes and OAuth clients for engram serve
  export DIR             write a brain out as markdown files with front matter
  import DIR             read a folder of markdown files (a vault) into a brain
  backup FILE            write a consistent copy of the database, even while engram runs
  restore FILE           replace the database with a backup (engram must not be running)
  migrate --from SRC --to DST
                         copy a database between SQLite and PostgreSQL (either way)
  doctor                 check the config, data directory, free space and database integrity
  mcp servers|doctor|import|enable|disable|consent|remove|keys|sign
                         review, sign and launch upstream MCP servers safely
  mcp discover|call|read-resource
                         connect to an upstream server and use it
  mcp auth login|status|logout
                         log in to remote upstream servers that require OAuth
  mcp approvals|exposure approve upstream tools; see what agents are offered and why
  mcp compile-resource|score|report|marketplace
                         compile resources into memory; score upstreams; the audit report
                         (engram mcp --help lists them all)
  config path            print the config file in use (or where one would be read) and why
  version                print version information (also: --version, -v)

Every command takes --help, --config FILE, --data DIR and --log-level LEVEL.
Exit codes: 0 ok, 1 error, 2 usage or invalid input, 75 busy: database or consolidation lock
held by another process, or the disk is full (retry later).
`;

/** Runs one command line and returns the exit code. Never throws. */
export async function runCli(argv: string[], ctx: CommandContext): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === "help" || name === "--help" || name === "-h") {
      // Asked-for help goes to stdout; help shown because the command line was incomplete is an error.
      if (name === undefined) {
        ctx.out.warn(MAIN_HELP);
        return EXIT.usage;
      }
      ctx.out.line(MAIN_HELP);
      return EXIT.ok;
    }
    if (name === "--version" || name === "-V" || name === "-v") {
      return await (await COMMANDS.version())([], ctx);
    }
    const load = COMMANDS[name];
    if (!load) {
      const meant = meantName(name, Object.keys(COMMANDS));
      throw new EngramError(
        "invalid_argument",
        `unknown command "${name}"${meant ? `; did you mean "${meant}"?` : ""}; see: engram --help`,
      );
    }
    return await (await load())(rest, ctx);
  } catch (err) {
    // Like any Unix tool whose reader went away (`engram search x | head`): stop, quietly.
    if (ctx.out.stdoutClosed) return EXIT.ok;
    const e = toEngramError(err);
    ctx.out.warn(`engram: ${e.code === "invalid_argument" ? "" : `${e.code}: `}${e.message}`);
    return exitCodeFor(e.code);
  }
}
