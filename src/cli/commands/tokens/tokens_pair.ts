/**
 * @module `engram tokens pair`: a one-time pairing code, proof on engram's consent page when a
 * connector (Claude.ai, ChatGPT) is added by URL (docs/cli.md#engram-tokens-pair).
 */
import { PairCodeInput, PairingCodes } from "../../../core/oauth/pairing_codes.ts";
import {
  commandInput,
  type CommandSpec,
  configFlags,
  parseOrHelp,
  usageError,
} from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { CLI_CALLER, withRuntime } from "../../runtime.ts";

/** Usage of `engram tokens pair`. */
export const TOKENS_PAIR_SPEC: CommandSpec = {
  name: "tokens pair",
  usage: "engram tokens pair --tier read|write|admin [--brain SLUG]... [--json]",
  summary:
    "Print a one-time pairing code, valid 10 minutes: type it on engram's consent page (OAuth, " +
    "server.oauth.enabled) to let a connector in at this tier and these brains, at most. " +
    "engram keeps only its hash.\n" +
    "When stdout is not a terminal, stdout is the code alone on one line (notes go to stderr).",
  options: {
    tier: { type: "string", help: "T  read, write or admin: the most the consent may grant" },
    brain: {
      type: "string",
      multiple: true,
      help: "SLUG  a brain the consent may grant (else all brains)",
    },
    json: { type: "boolean", help: "print { code, id, tier, brains, expires_at } as JSON" },
  },
  positionals: [0, 0],
};

/** Runs `engram tokens pair`. */
export async function tokensPair(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, TOKENS_PAIR_SPEC, ctx.out);
  if (!args) return 0;
  if (args.values.tier === undefined) throw usageError(TOKENS_PAIR_SPEC, "missing --tier");
  // Validated before the database is opened, so a typo never creates a data directory.
  const input = commandInput(
    PairCodeInput,
    { tier: args.values.tier, brains: args.values.brain },
    { spec: TOKENS_PAIR_SPEC, renames: { brains: "--brain" } },
  );
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const { code, record } = await new PairingCodes(runtime.authorization).create(input);
    const all = await runtime.service.listBrains(CLI_CALLER);
    const brains = record.brains === "*"
      ? "*"
      : record.brains.map((id) => all.find((b) => b.id === id)?.slug ?? id);
    if (args.values.json) {
      ctx.out.json({
        code,
        id: record.id,
        tier: record.tier,
        brains,
        expires_at: record.expires_at,
      });
      return 0;
    }
    const what = `pairing code ${record.id} (tier ${record.tier}, brains: ${
      brains === "*" ? "all" : brains.join(", ")
    }), valid until ${record.expires_at.slice(11, 19)}Z`;
    const how =
      "Type it on engram's consent page when the connector asks; it works once, for 10 minutes.";
    if (ctx.out.isTerminal) {
      ctx.out.line(`created ${what}\n\n  ${ctx.out.bold(code)}\n\n${how}`);
    } else {
      ctx.out.line(code);
      ctx.out.warn(`created ${what}. ${how}`);
    }
    return 0;
  });
}
