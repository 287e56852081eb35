/**
 * @module `engram mcp approvals export FILE | import FILE | verify [--lock FILE]`: approvals as a
 * committable lockfile, and the CI check that connects to every pinned server and exits 1 when any
 * pin no longer holds.
 */
import { resolve } from "node:path";
import { configFileHint } from "../../../config/config_file.ts";
import { EngramError } from "../../../core/errors.ts";
import { driftOf } from "../../../mcp/client/approvals/approval_actions.ts";
import { readLockfile, writeLockfile } from "../../../mcp/client/approvals/approvals_lockfile.ts";
import { lockfileBook } from "../../../mcp/client/approvals/approval_book.ts";
import { signedUnderV2, withCarriedPins } from "../../../mcp/client/approvals/pin_carry.ts";
import { countedReviewKeys } from "../../../mcp/client/launch/launch_facts.ts";
import { configFlags, type Parsed, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { EXIT } from "../../exit_codes.ts";
import { reviewServers, trustedKeysOf, withUpstreams } from "../../upstreams.ts";
import { approvalBook } from "../../upstream_wiring.ts";
import { MCP_APPROVALS_SPEC } from "./approvals_spec.ts";

/** Runs export, import or verify. */
export async function approvalsLockCommand(
  verb: "export" | "import" | "verify",
  o: { args: Parsed; operands: string[]; ctx: CommandContext },
): Promise<number> {
  const { args, operands, ctx } = o;
  const file = operands[0] === undefined ? undefined : resolve(ctx.cwd, operands[0]);
  if (verb !== "verify" && file === undefined) {
    throw usageError(MCP_APPROVALS_SPEC, `${verb} takes FILE`);
  }
  const json = args.values.json === true;
  const mode = verb === "verify" ? "mcp-live" : "cli";
  return await withUpstreams(ctx, configFlags(args.values), { mode }, async (u) => {
    if (verb === "export") {
      // Pins made under launch manifest v1 move to v2 here, for launches an operator signed under
      // v2 only (docs/upstream.md#upgrading-from-manifest-v1).
      const book = approvalBook(u);
      const keys = countedReviewKeys(u.config.mcp.review_keys, await trustedKeysOf(u.runtime));
      const servers = await signedUnderV2(
        u.catalog.filter((e) => !e.problem).map((e) => e.config),
        keys.keys,
      );
      const { approvals, carried } = await withCarriedPins(await book.list(), servers);
      for (const a of carried) await book.put(a);
      await writeLockfile(file!, approvals);
      if (json) ctx.out.json({ file, approvals: approvals.length, carried: carried.length });
      else {
        ctx.out.line(`wrote ${approvals.length} approval(s) to ${file}`);
        if (carried.length) {
          ctx.out.line(
            `${carried.length} pin(s) made under launch manifest v1 carried over to v2 (definitions unchanged)`,
          );
        }
      }
      return EXIT.ok;
    }
    if (verb === "import") {
      const approvals = await readLockfile(file!);
      await approvalBook(u).replaceAll(approvals);
      if (json) ctx.out.json({ file, approvals: approvals.length });
      else ctx.out.line(`imported ${approvals.length} approval(s) from ${file}`);
      return EXIT.ok;
    }
    const lock = args.values.lock === undefined
      ? undefined
      : resolve(ctx.cwd, args.values.lock as string);
    const book = lock ? lockfileBook(lock) : approvalBook(u);
    if (book.source === "database") {
      throw new EngramError(
        "invalid_argument",
        `verify compares a lockfile with the servers: pass --lock FILE, or set mcp.approvals_lock in ${
          configFileHint(u.config.configLocation)
        }`,
      );
    }
    const approvals = await readLockfile(book.source);
    const names = [...new Set(approvals.map((a) => a.server.toLowerCase()))];
    const entries = u.catalog.filter((e) =>
      !e.problem && names.includes(e.config.name.toLowerCase())
    );
    const reviews = await reviewServers(u, ctx, entries, { book });
    const drift = driftOf(approvals, reviews);
    const unpinned = reviews.flatMap((r) =>
      r.states.filter((s) => s.state === "pending").map((s) => `${s.server} ${s.kind} ${s.name}`)
    );
    if (json) ctx.out.json({ lockfile: book.source, ok: drift.length === 0, drift, unpinned });
    else {
      for (const d of drift) {
        ctx.out.line(`DRIFT ${d.drift} ${d.server} ${d.kind} ${d.name}: ${d.detail}`);
      }
      if (unpinned.length) {
        ctx.out.line(`not in the lockfile (not approved, not exposed): ${unpinned.join(", ")}`);
      }
      ctx.out.line(
        drift.length
          ? `${drift.length} pin(s) of ${book.source} no longer hold; review with engram mcp approvals diff SERVER NAME`
          : `every pin of ${book.source} holds (${approvals.length} approval(s))`,
      );
    }
    return drift.length ? EXIT.error : EXIT.ok;
  });
}
