/**
 * @module `mcp-lock.json`: the operator's approvals as a file a team commits and reviews. Stable
 * and sorted (servers, then `kind:name`, keys of every definition in canonical order), so a change
 * shows as a small diff. It holds each pin, the server identity it was made against, the exposure
 * tier (and `as`, the name a tool is exposed by when the operator chose one) and the approved
 * definition itself, so a reviewer sees what was approved. A file that does
 * not parse, or holds a malformed entry, is refused with its file and line.
 */
import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { z } from "zod";
import { EngramError } from "../../../core/errors.ts";
import type { ApprovedKind, CapabilityApproval } from "../../../core/ports/approval_store.ts";
import { EXPOSED_AS, EXPOSED_AS_RULE } from "../exposure/exposed_names.ts";
import { parseJsonWithComments } from "../import/json_with_comments.ts";

/** The lockfile format version this engram writes and reads. */
export const LOCKFILE_VERSION = 1;

const PIN = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" and 64 hex digits');
const ENTRY = z.strictObject({
  pin: PIN,
  identity: PIN,
  state: z.enum(["approved", "revoked"]),
  expose: z.enum(["read", "write", "admin"]).nullable(),
  // Written only when set, so lockfiles without an operator's name read and diff as before.
  as: z.string().regex(EXPOSED_AS, EXPOSED_AS_RULE).optional(),
  approved_at: z.string().min(1),
  approved_by: z.string().nullable(),
  revoked_at: z.string().nullable(),
  definition: z.record(z.string(), z.unknown()),
});
const LOCKFILE = z.strictObject({
  engram_lock: z.literal(LOCKFILE_VERSION, {
    error: `must be ${LOCKFILE_VERSION}; this file was written by another engram version`,
  }),
  servers: z.record(
    z.string(),
    z.record(
      z.string().regex(
        /^(tool|prompt|template):.+$/,
        'keys must be "tool:NAME", "prompt:NAME" or "template:NAME"',
      ),
      ENTRY,
    ),
  ),
});

/** The lockfile text of `approvals`. */
export function lockfileText(approvals: readonly CapabilityApproval[]): string {
  const servers: Record<string, Record<string, unknown>> = {};
  const sorted = [...approvals].sort((a, b) =>
    a.server.localeCompare(b.server) || a.kind.localeCompare(b.kind) ||
    a.name.localeCompare(b.name)
  );
  for (const a of sorted) {
    (servers[a.server] ??= {})[`${a.kind}:${a.name}`] = {
      pin: a.pin,
      identity: a.identity,
      state: a.state,
      expose: a.expose_tier,
      ...(a.expose_as ? { as: a.expose_as } : {}),
      approved_at: a.approved_at,
      approved_by: a.approved_by,
      revoked_at: a.revoked_at,
      definition: sortKeys(a.definition),
    };
  }
  return JSON.stringify({ engram_lock: LOCKFILE_VERSION, servers }, null, 2) + "\n";
}

/** The approvals in a lockfile's text; `file` names it in errors. */
export function parseLockfile(text: string, file: string): CapabilityApproval[] {
  const raw = parseJsonWithComments(text, {
    what: `lockfile ${file}`,
    hint: "fix it, or write it again with: engram mcp approvals export FILE",
  });
  const parsed = LOCKFILE.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const node = findNodeAtLocation(parseTree(text)!, issue.path as (string | number)[]);
    const line = node ? text.slice(0, node.offset).split("\n").length : 1;
    throw new EngramError(
      "invalid_argument",
      `lockfile ${file}:${line} key ${issue.path.join(".") || "(top)"}: ${issue.message}`,
    );
  }
  const out: CapabilityApproval[] = [];
  for (const [server, entries] of Object.entries(parsed.data.servers)) {
    for (const [key, e] of Object.entries(entries)) {
      const colon = key.indexOf(":");
      out.push({
        server,
        kind: key.slice(0, colon) as ApprovedKind,
        name: key.slice(colon + 1),
        state: e.state,
        pin: e.pin,
        definition: e.definition,
        identity: e.identity,
        expose_tier: e.expose,
        ...(e.as ? { expose_as: e.as } : {}),
        approved_by: e.approved_by,
        approved_at: e.approved_at,
        revoked_at: e.revoked_at,
      });
    }
  }
  return out;
}

/** Reads a lockfile; a missing file is `not_found` naming it and how to write one. */
export async function readLockfile(file: string): Promise<CapabilityApproval[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new EngramError(
        "not_found",
        `lockfile ${file} does not exist; write it with: engram mcp approvals export ${file}`,
      );
    }
    throw new EngramError(
      "invalid_argument",
      `cannot read lockfile ${file}: ${(err as Error).message}`,
    );
  }
  return parseLockfile(text, file);
}

/** Writes a lockfile whole (a temporary file renamed into place): a reader never sees half of it. */
export async function writeLockfile(
  file: string,
  approvals: readonly CapabilityApproval[],
): Promise<void> {
  const temp = `${file}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.writeTextFile(temp, lockfileText(approvals));
    await Deno.rename(temp, file);
  } catch (err) {
    await Deno.remove(temp).catch(() => {});
    throw new EngramError(
      "invalid_argument",
      `cannot write lockfile ${file}: ${(err as Error).message}`,
    );
  }
}

/** A JSON value with every object's keys sorted (the order JCS uses), for stable diffs. */
export function sortKeys<T>(value: T): T {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return sort(value) as T;
}
