/**
 * @module The login step of `engram mcp review` (docs/upstream.md#review-from-import-to-an-exposed-tool):
 * a remote server that answered the start with "needs a login" is logged in to on the spot when a
 * person is at the terminal — asked first, then the URL shown and the browser waited for — so the
 * review goes on; off a terminal, or with `--yes`, nobody is asked, and the failed start names the
 * login command to run before reviewing again.
 */
import type { HttpServerConfig } from "../../../../config/mcp_servers.ts";
import { EngramError } from "../../../../core/errors.ts";
import type { UpstreamOAuth } from "../../../../mcp/client/oauth/upstream_oauth.ts";
import type { CommandContext } from "../../../context.ts";
import type { UpstreamSetup } from "../../../upstreams.ts";
import { describeLogin, loginChange, loginStep } from "./login_step.ts";

/** What the step needs of the review. */
export interface ReviewLoginRun {
  ctx: CommandContext;
  oauth: UpstreamOAuth;
  /** Prints a step line (nothing with --json). */
  say(line: string): void;
  /** --json: the URL still has to be seen, so it goes to stderr. */
  json: boolean;
  /** --yes: nobody is asked, so nobody logs in. */
  yes: boolean;
  /** The review's one reader of the terminal. */
  read(): Promise<string | null>;
  signal: AbortSignal;
  /** Records an operator action of the review. */
  audit(changes: string[]): Promise<void>;
}

/** How the step ended, for the review's account. */
export interface ReviewLoginOutcome {
  /** The server is logged in now: start it again. */
  loggedIn: boolean;
  account: Record<string, unknown>;
}

/**
 * Offers the login to `server`, which needs one (`why`). On a terminal without --yes: asked, and
 * run when the answer is yes. A login that fails is said and counts as not logged in.
 */
export async function reviewLogin(
  u: UpstreamSetup,
  server: HttpServerConfig,
  o: ReviewLoginRun & { why: string },
): Promise<ReviewLoginOutcome> {
  const name = server.name;
  // Nobody could open the URL: the failed start that follows names the login command.
  if (!o.ctx.stdinIsTerminal || o.yes) {
    return { loggedIn: false, account: { step: "login", logged_in: false, asked: false } };
  }
  o.ctx.out.warn(
    `${name}: ${o.why}; log in now (engram prints a URL to open in a browser)? [y/N] `,
  );
  const answer = ((await o.read()) ?? "").trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") {
    return { loggedIn: false, account: { step: "login", logged_in: false, asked: true } };
  }
  const write = (line: string) => o.json ? o.ctx.out.warn(line) : o.ctx.out.line(line);
  try {
    const result = await loginStep(u, server, {
      oauth: o.oauth,
      write,
      indent: "   ",
      signal: o.signal,
    });
    o.say(`   ${describeLogin(name, result)}`);
    if (result.status === "logged_in") await o.audit([loginChange(result)]);
    return {
      loggedIn: true,
      account: {
        step: "login",
        logged_in: result.status === "logged_in",
        asked: true,
        expires_at: result.expires_at,
        refreshable: result.refreshable,
        scope: result.scope,
      },
    };
  } catch (error) {
    if (o.signal.aborted || !(error instanceof EngramError)) throw error;
    o.say(`   the login failed: ${error.message}`);
    return {
      loggedIn: false,
      account: { step: "login", logged_in: false, asked: true, error: error.message },
    };
  }
}
