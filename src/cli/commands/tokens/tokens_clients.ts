/**
 * @module `engram tokens clients` and `engram tokens clients remove`: the OAuth clients that
 * registered with engram serve (or were described by a metadata document), with what they hold.
 * Their names are their own untrusted text: shown quoted and escaped, never raw.
 */
import type { ListedOAuthClient } from "../../../core/ports/oauth_store.ts";
import { RegisteredClients } from "../../../core/oauth/registered_clients.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { table } from "../../output.ts";
import { withRuntime } from "../../runtime.ts";

/** Usage of `engram tokens clients`. */
export const TOKENS_CLIENTS_SPEC: CommandSpec = {
  name: "tokens clients",
  usage: "engram tokens clients [--json]",
  summary:
    "List the OAuth clients of engram serve (server.oauth.enabled): id, name (the client's own, " +
    "shown escaped), redirect hosts, created, last used, live access tokens and grants. A " +
    "registration unused for server.oauth.registration_ttl_ms is removed with its tokens.",
  options: { json: { type: "boolean", help: "print { items } as JSON" } },
  positionals: [0, 0],
};

/** Usage of `engram tokens clients remove`. */
export const TOKENS_CLIENTS_REMOVE_SPEC: CommandSpec = {
  name: "tokens clients remove",
  usage: "engram tokens clients remove CLIENT_ID [--json]",
  summary:
    "Remove an OAuth client with its codes, grants and tokens; they stop working at once. A " +
    "client may register again, and a person must consent again.",
  options: { json: { type: "boolean", help: "print { client_id, access_tokens } as JSON" } },
  positionals: [1, 1],
};

/** The longest client name shown in a table (the listing's JSON has all of it). */
const NAME_SHOWN_CHARS = 40;

/** Runs `engram tokens clients` and `engram tokens clients remove`. */
export async function tokensClients(argv: string[], ctx: CommandContext): Promise<number> {
  if (argv[0] === "remove") return await remove(argv.slice(1), ctx);
  const args = parseOrHelp(argv, TOKENS_CLIENTS_SPEC, ctx.out);
  if (!args) return 0;
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const items = await new RegisteredClients(runtime.authorization).list();
    if (args.values.json) {
      ctx.out.json({ items: items.map((c) => ({ ...c, redirect_hosts: redirectHosts(c) })) });
    } else if (items.length === 0) {
      ctx.out.line(
        "no OAuth clients; connectors register when engram serve runs with server.oauth.enabled",
      );
    } else {
      ctx.out.line(table([
        ["ID", "NAME", "KIND", "REDIRECT HOSTS", "CREATED", "LAST USED", "TOKENS", "GRANTS"],
        ...items.map((c) => [
          c.client_id,
          clientNameShown(c.client_name),
          c.kind === "registered" ? "registered" : "document",
          redirectHosts(c).join(","),
          shownTime(c.created_at),
          shownTime(c.last_used_at),
          String(c.access_tokens),
          String(c.grants),
        ]),
      ]));
    }
    return 0;
  });
}

async function remove(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, TOKENS_CLIENTS_REMOVE_SPEC, ctx.out);
  if (!args) return 0;
  const clientId = args.positionals[0];
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const removed = await new RegisteredClients(runtime.authorization).remove(clientId);
    if (args.values.json) {
      ctx.out.json({ client_id: clientId, access_tokens: removed.accessTokens });
    } else {
      ctx.out.line(
        `removed OAuth client ${JSON.stringify(clientId)} with its grants and ${
          removed.accessTokens === 1 ? "1 access token" : `${removed.accessTokens} access tokens`
        }`,
      );
    }
    return 0;
  });
}

/** A client's name for a table cell: quoted, escaped, shortened; `-` when it gave none. */
export function clientNameShown(name: string | null): string {
  if (name === null) return "-";
  const chars = [...name];
  const short = chars.length > NAME_SHOWN_CHARS
    ? `${chars.slice(0, NAME_SHOWN_CHARS - 1).join("")}…`
    : name;
  // JSON quoting shows control characters (newlines and escapes included) as visible escapes, so a
  // name can neither break the table nor pass for another column; Output escapes the rest.
  return JSON.stringify(short);
}

function redirectHosts(client: ListedOAuthClient): string[] {
  return [...new Set(client.redirect_uris.map((uri) => URL.parse(uri)?.host ?? "?"))];
}

/** A stored time as a table shows it (`2030-01-01 10:00:00Z`), or `-`. */
export function shownTime(iso: string | null): string {
  return iso === null ? "-" : `${iso.slice(0, 19).replace("T", " ")}Z`;
}
