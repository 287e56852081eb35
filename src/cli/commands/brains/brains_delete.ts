/** @module `engram brains delete SLUG [--force]`: permanent, so it asks first (or wants --force). */
import type { BrainDeletionPlan } from "../../../core/brains.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { EXIT } from "../../exit_codes.ts";
import { CLI_CALLER, withRuntime } from "../../runtime.ts";
import { stdinLines } from "../../stdin_lines.ts";

/** Usage of `engram brains delete`. */
export const BRAINS_DELETE_SPEC: CommandSpec = {
  name: "brains delete",
  usage: "engram brains delete SLUG [--force] [--json]",
  summary: "Delete a brain and everything in it (documents, versions, index, sessions, jobs), " +
    "permanently.\nOn a terminal it asks you to type the slug; otherwise it needs --force. Tokens " +
    "scoped to this brain alone are revoked; tokens scoped to several brains lose this one.",
  options: {
    force: { type: "boolean", help: "delete without asking (needed when stdin is not a terminal)" },
    json: { type: "boolean", help: "print { brain, documents, revoked_tokens, narrowed_tokens }" },
  },
  positionals: [1, 1],
};

/** Deletes a brain once confirmed, and says what went with it. */
export async function brainsDelete(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, BRAINS_DELETE_SPEC, ctx.out);
  if (!args) return 0;
  const slug = args.positionals[0];
  const force = args.values.force === true;
  if (!force && !ctx.stdinIsTerminal) {
    throw usageError(
      BRAINS_DELETE_SPEC,
      `deleting brain "${slug}" is permanent and stdin is not a terminal to confirm it; pass --force`,
    );
  }
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const done = await runtime.service.deleteBrain(CLI_CALLER, slug, {
      confirm: force ? undefined : (plan) => confirm(plan, ctx),
    });
    if (!done) {
      ctx.out.warn(`engram: nothing deleted: the slug was not typed; brain "${slug}" is unchanged`);
      return EXIT.error;
    }
    if (args.values.json) {
      ctx.out.json({
        brain: done.brain,
        documents: done.documents,
        revoked_tokens: done.revokedTokens,
        narrowed_tokens: done.narrowedTokens,
      });
      return 0;
    }
    ctx.out.line(
      `deleted brain ${done.brain.slug} (id ${done.brain.id}) and its ${done.documents} documents`,
    );
    if (done.revokedTokens.length) {
      ctx.out.line(`revoked tokens scoped to it alone: ${done.revokedTokens.join(", ")}`);
    }
    if (done.narrowedTokens.length) {
      ctx.out.line(`removed it from the scope of tokens: ${done.narrowedTokens.join(", ")}`);
    }
    return 0;
  });
}

/** Asks on the terminal; only the exact slug, typed back, confirms. */
async function confirm(plan: BrainDeletionPlan, ctx: CommandContext): Promise<boolean> {
  const forgotten = plan.forgotten ? ` (and ${plan.forgotten} forgotten)` : "";
  ctx.out.warn(
    `delete brain "${plan.brain.slug}" and its ${plan.documents} documents${forgotten} permanently? type the slug to confirm:`,
  );
  return (await stdinLines(ctx.stdin)())?.trim() === plan.brain.slug;
}
