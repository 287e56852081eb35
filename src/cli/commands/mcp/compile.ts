/**
 * @module `engram mcp compile-resource NAME URI` and `NAME --all`: upstream resources stored as
 * versioned documents with their provenance, from servers trusted for it; `--all` refreshes every
 * document compiled from a server and says which changed.
 */
import { EngramError } from "../../../core/errors.ts";
import {
  type CompileOutcome,
  compileRefusal,
  compileResource,
  recompileAll,
  type RefreshReport,
  type ResourceSource,
} from "../../../mcp/client/compile/resource_compiler.ts";
import { findEntry } from "../../../mcp/client/upstream_catalog.ts";
import type { UpstreamConnections } from "../../../mcp/client/session/upstream_connections.ts";
import type { UpstreamSession } from "../../../mcp/client/session/upstream_session.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { EXIT } from "../../exit_codes.ts";
import { table } from "../../output.ts";
import { CLI_CALLER } from "../../runtime.ts";
import { connectUpstreams, withUpstreams } from "../../upstreams.ts";
import { pruneTracesQuietly } from "../../upstream_wiring.ts";

/** Usage of `engram mcp compile-resource`. */
export const MCP_COMPILE_SPEC: CommandSpec = {
  name: "mcp compile-resource",
  usage:
    "engram mcp compile-resource NAME URI [--brain B] [--path P] [--json] | NAME --all [--brain B] [--json]",
  summary:
    "Read resource URI of upstream server NAME and store it as a document (source compile) with its provenance (shown by memory_get and memory_search, never writable by a tool call): server, uri, fetched_at, sha256 of the bytes fetched, and approval (the server's identity pin at the time). Text is stored as sent, a PDF through the PDF extractor; other binary is refused. The same bytes again make no new version. Only servers with trust verified or builtin, or compile: true, may be compiled from. --all recompiles every document compiled from NAME in the brain and reports changed, unchanged and failed (exit 1 if any failed).",
  options: {
    brain: { type: "string", help: "B  brain slug or id (default: the default brain)" },
    path: {
      type: "string",
      help: "P  document path (default /compiled/<server>/<from the URI>.md)",
    },
    all: { type: "boolean", help: "recompile every document compiled from NAME" },
    json: { type: "boolean", help: "print the result as JSON" },
  },
  positionals: [1, 2],
};

/** Runs `engram mcp compile-resource`. */
export async function mcpCompileResource(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_COMPILE_SPEC, ctx.out);
  if (!args) return 0;
  const [name, uri] = args.positionals;
  const all = args.values.all === true;
  const path = args.values.path as string | undefined;
  const brain = args.values.brain as string | undefined;
  if (all && uri !== undefined) {
    throw usageError(MCP_COMPILE_SPEC, "give a URI or --all, not both");
  }
  if (all && path !== undefined) {
    throw usageError(MCP_COMPILE_SPEC, "--path names one document; --all keeps each one's path");
  }
  if (!all && uri === undefined) {
    throw usageError(
      MCP_COMPILE_SPEC,
      "missing URI; give the resource to compile (see them with: engram mcp discover NAME), or --all to recompile what was compiled before",
    );
  }
  return await withUpstreams(ctx, configFlags(args.values), { mode: "mcp-live" }, async (u) => {
    const entry = findEntry(u.catalog, name);
    const refusal = compileRefusal(entry);
    if (refusal) throw refusal;
    if (entry.problem) {
      throw new EngramError("conflict", `upstream server "${entry.config.name}": ${entry.problem}`);
    }
    // Bookkeeping: a busy database must not fail the command; the next one prunes again.
    await pruneTracesQuietly(u.runtime, u.config);
    const connections = connectUpstreams({ ...u, facts: u.facts! }, ctx, { interactive: true });
    try {
      const source = lazySource(connections, entry.config.name, entry.config);
      const deps = { memory: u.runtime.service, caller: CLI_CALLER };
      if (all) {
        const report = await recompileAll(deps, source, { brain });
        if (args.values.json) ctx.out.json(report);
        else printRefresh(ctx, report);
        return report.failed ? EXIT.error : EXIT.ok;
      }
      const outcome = await compileResource(deps, { source, uri: uri! }, { brain, path });
      if (args.values.json) ctx.out.json(outcomeJson(outcome));
      else printOutcome(ctx, outcome);
      return EXIT.ok;
    } finally {
      await connections.closeAll();
    }
  });
}

/**
 * The server as a resource source that connects on the first read, once: a server that cannot
 * start is reported on every document of `--all` without a new attempt for each.
 */
function lazySource(
  connections: UpstreamConnections,
  name: string,
  server: ResourceSource["server"],
): ResourceSource {
  let session: Promise<UpstreamSession> | undefined;
  return {
    name,
    server,
    readResource: async (uri) =>
      await (await (session ??= connections.session(name))).readResource(uri),
  };
}

function outcomeJson(o: CompileOutcome) {
  const d = o.document;
  return {
    status: o.status,
    server: o.server,
    uri: o.uri,
    brain: o.brain,
    path: d.path,
    document_id: d.id,
    version: d.version,
    sha256: o.sha256,
    fetched_at: o.provenance.fetched_at,
    approval: o.provenance.approval,
  };
}

function printOutcome(ctx: CommandContext, o: CompileOutcome): void {
  const d = o.document;
  const where = `${d.path} in brain "${o.brain}"`;
  if (o.status === "unchanged") {
    ctx.out.line(
      `unchanged: ${o.uri} from ${o.server} has the same bytes as ${where} (version ${d.version}, fetched ${
        o.provenance.fetched_at.slice(0, 19)
      }Z); no new version`,
    );
    return;
  }
  ctx.out.line(
    `${
      o.status === "created" ? "compiled" : "recompiled (changed)"
    } ${o.uri} from ${o.server} into ${where}: version ${d.version}, sha256 ${
      o.sha256.slice(0, 16)
    }…`,
  );
}

function printRefresh(ctx: CommandContext, r: RefreshReport): void {
  if (r.documents.length === 0) {
    ctx.out.line(
      `no documents compiled from ${r.server} in brain "${r.brain}"; compile one with: engram mcp compile-resource ${r.server} URI`,
    );
    return;
  }
  ctx.out.line(
    `${r.server} in brain "${r.brain}": ${r.changed} changed, ${r.unchanged} unchanged, ${r.failed} failed`,
  );
  ctx.out.line("");
  ctx.out.line(table([
    ["status", "version", "path", "uri"],
    ...r.documents.map((d) => [d.status, String(d.version), d.path, d.uri]),
  ]));
  const failed = r.documents.filter((d) => d.error);
  if (failed.length) ctx.out.line("");
  for (const d of failed) ctx.out.line(`${d.path}: ${d.error!.code}: ${d.error!.message}`);
}
