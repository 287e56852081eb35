/**
 * @module What `engram mcp call`, `read-resource` and `get-prompt` share: one live session to the
 * named server that Ctrl-C cancels and closes, the arguments from `--args` or `--args-file` (a JSON
 * object), and the check that a capability exists upstream and is approved as listed now
 * (docs/upstream.md#approvals).
 */
import { resolve } from "node:path";
import { EngramError } from "../../../core/errors.ts";
import { nearestNames } from "../../../core/text/edit_distance.ts";
import { pinListed, serverIdentity } from "../../../mcp/client/approvals/capability_pins.ts";
import { strictJsonError } from "../../../mcp/client/import/json_with_comments.ts";
import type { UpstreamSession } from "../../../mcp/client/session/upstream_session.ts";
import { findEntry } from "../../../mcp/client/upstream_catalog.ts";
import type { ConfigFlags } from "../../../config/load.ts";
import { type CommandSpec, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { unlessAborted, untilInterrupted } from "../../interrupt.ts";
import { connectUpstreams, type UpstreamSetup, withUpstreams } from "../../upstreams.ts";
import { approvalBook } from "../../upstream_wiring.ts";

/**
 * Runs `fn` on a live session to server `name`, closing every connection after; SIGINT or SIGTERM
 * aborts `signal`, which cancels what is in flight upstream, and the command exits 130 or 143.
 */
export function withLiveSession(
  ctx: CommandContext,
  flags: ConfigFlags,
  o: {
    name: string;
    run: (
      live: { u: UpstreamSetup; session: UpstreamSession; signal: AbortSignal },
    ) => Promise<number>;
  },
): Promise<number> {
  return untilInterrupted(
    ctx,
    (signal) =>
      withUpstreams(ctx, flags, { mode: "mcp-live" }, async (u) => {
        const entry = findEntry(u.catalog, o.name);
        const connections = connectUpstreams({ ...u, facts: u.facts! }, ctx, { interactive: true });
        try {
          const session = await unlessAborted(connections.session(entry.config.name), signal);
          return await o.run({ u, session, signal });
        } finally {
          await connections.closeAll();
        }
      }),
  );
}

/** The arguments from --args or --args-file: a JSON object, or a usage error saying where. */
export async function readJsonArguments(
  values: Record<string, unknown>,
  ctx: CommandContext,
  o: { spec: CommandSpec; of: string },
): Promise<{ value: Record<string, unknown>; where: string }> {
  if (values.args !== undefined && values["args-file"] !== undefined) {
    throw usageError(o.spec, "give --args or --args-file, not both");
  }
  let text = values.args as string | undefined;
  let where = "--args";
  const file = values["args-file"] as string | undefined;
  if (file !== undefined) {
    where = file === "-" ? "stdin" : resolve(ctx.cwd, file);
    try {
      text = file === "-" ? await new Response(ctx.stdin).text() : await Deno.readTextFile(where);
    } catch (err) {
      throw new EngramError(
        "invalid_argument",
        `cannot read --args-file ${where}: ${(err as Error).message}`,
      );
    }
  }
  if (text === undefined) return { value: {}, where };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(
      o.spec,
      `${where} is not JSON: ${strictJsonError(text) ?? "not a JSON value"}`,
    );
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw usageError(o.spec, `${where} must be a JSON object of the ${o.of}'s arguments`);
  }
  return { value: value as Record<string, unknown>, where };
}

/** A tool or prompt as its server lists it: what a pin is computed over. */
interface Listed {
  name: string;
}

/**
 * The capability exists upstream (else `not_found` with the nearest names) and is approved as
 * listed now (else `forbidden` saying what to do), unless `unapproved`.
 */
export async function checkApproved(
  u: UpstreamSetup,
  session: UpstreamSession,
  o: {
    kind: "tool" | "prompt";
    name: string;
    listed: readonly Listed[];
    unapproved: boolean;
  },
): Promise<void> {
  const server = session.name;
  const found = o.listed.find((c) => c.name === o.name);
  if (!found) {
    const near = nearestNames(o.name, o.listed.map((c) => c.name));
    throw new EngramError(
      "not_found",
      `upstream ${server} has no ${o.kind} "${o.name}"${
        near.length ? `; nearest: ${near.join(", ")}` : ""
      }; list its ${o.kind}s with: engram mcp discover ${server}`,
    );
  }
  if (o.unapproved) return;
  const live = await pinListed(o.kind, found, await serverIdentity(session.server));
  const approval = await approvalBook(u).find({ server, kind: o.kind, name: o.name });
  if (approval?.state === "approved" && approval.pin === live.pin) return;
  const why = !approval
    ? "is not approved"
    : approval.state === "revoked"
    ? "was revoked"
    : "changed since it was approved (its approval lapsed)";
  const kindFlag = o.kind === "tool" ? "" : ` --kind ${o.kind}`;
  const once = o.kind === "tool" ? "call it" : "get it";
  throw new EngramError(
    "forbidden",
    `upstream ${server} ${o.kind} ${o.name} ${why}; review it with: engram mcp approvals diff ${server} ${o.name}${kindFlag}, approve it with: engram mcp approvals approve ${server} ${o.name}${kindFlag}, or ${once} once with --unapproved`,
  );
}
