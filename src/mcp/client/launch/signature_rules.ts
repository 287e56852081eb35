/**
 * @module The review rules of a stdio launch (docs/upstream.md#reviewing-and-signing-a-launch):
 * `manifest_version` (a launch signed under manifest v1, which did not cover env values, is named
 * as such: docs/upstream.md#upgrading-from-manifest-v1), `manifest_digest` (the digest of the
 * launch as configured matches) and `manifest_signature` (a review key signed that digest).
 */
import type { StdioServerConfig } from "../../../config/mcp_servers.ts";
import { fail, type LaunchCheck, pass } from "./command_rules.ts";
import { manifestDigest, manifestDigestV1 } from "./launch_manifest.ts";
import { findSigner } from "./review_keys.ts";

/** The fix of a launch signed under manifest v1, in every message that names it. */
export function resignFix(server: string): string {
  return `re-review with engram mcp review ${server} (or sign it again: engram mcp sign ${server} --key FILE; engram mcp sign --all --key FILE signs every reviewed server)`;
}

/** Whether the server's digest or signature is one made under manifest v1 of this very launch. */
export async function signedUnderV1(
  server: StdioServerConfig & { command: string },
  reviewKeys: readonly string[],
): Promise<boolean> {
  const v1 = await manifestDigestV1(server);
  if (server.manifest_digest === v1) return true;
  if (!server.manifest_signature || reviewKeys.length === 0) return false;
  const signed = { signature: server.manifest_signature, reviewKeys };
  if (await findSigner(await manifestDigest(server), signed)) return false;
  return await findSigner(v1, signed) !== null;
}

/**
 * The manifest_version, manifest_digest and manifest_signature checks, and the digest when one
 * can be computed (`command` is null when the command is not one plain executable).
 */
export async function signatureChecks(
  server: StdioServerConfig,
  o: { command: string | null; reviewKeys: readonly string[]; configFile?: string },
): Promise<{ checks: LaunchCheck[]; digest?: string }> {
  const { command, reviewKeys } = o;
  const sign =
    `review the launch and sign it: engram mcp review ${server.name} (or engram mcp sign ${server.name} --key FILE)`;
  const keysAt = `mcp.review_keys${o.configFile ? ` in ${o.configFile}` : ""}`;
  if (command === null) {
    const why = "cannot be computed until the command is one plain executable";
    return {
      checks: [
        fail("manifest_version", { detail: `manifest ${why}`, fix: "fix command first" }),
        fail("manifest_digest", { detail: `manifest digest ${why}`, fix: "fix command first" }),
        fail("manifest_signature", {
          detail: `manifest signature ${why}`,
          fix: "fix command first",
        }),
      ],
    };
  }
  const launch = { ...server, command };
  const digest = await manifestDigest(launch);
  const versionCheck = await signedUnderV1(launch, reviewKeys)
    ? fail("manifest_version", {
      detail: "signed under manifest v1, which does not cover env values",
      fix: resignFix(server.name),
    })
    : pass("manifest_version", "judged under manifest v2 (env values and allow_env included)");

  let digestCheck: LaunchCheck;
  if (!server.manifest_digest) {
    digestCheck = fail("manifest_digest", { detail: "manifest_digest is not set", fix: sign });
  } else if (server.manifest_digest !== digest) {
    digestCheck = fail("manifest_digest", {
      detail: `manifest_digest does not match this launch (signed ${
        server.manifest_digest.slice(0, 19)
      }…, now ${
        digest.slice(0, 19)
      }…): command, args, env values, allow_env, cwd, sandbox_profile or network changed since it was signed`,
      fix: `review the change, then sign again: engram mcp sign ${server.name} --key FILE`,
    });
  } else digestCheck = pass("manifest_digest", `manifest_digest matches (${digest})`);

  let signatureCheck: LaunchCheck;
  if (!server.manifest_signature) {
    signatureCheck = fail("manifest_signature", {
      detail: "manifest_signature is not set",
      fix: sign,
    });
  } else if (reviewKeys.length === 0) {
    signatureCheck = fail("manifest_signature", {
      detail:
        "mcp.review_keys is empty and no key is trusted in the database, so no signature can be trusted",
      fix:
        `review it with engram mcp review ${server.name} (it signs with your operator key and trusts it), or add the reviewer's public key to ${keysAt} (engram mcp keys generate prints it)`,
    });
  } else {
    // Verified over the digest of what would run, so a signature never vouches for another launch.
    const signer = await findSigner(digest, {
      signature: server.manifest_signature,
      reviewKeys,
    });
    signatureCheck = signer
      ? pass("manifest_signature", `signed by ${signer}`)
      : fail("manifest_signature", {
        detail:
          `manifest_signature is not a signature of this launch by any key in mcp.review_keys (${reviewKeys.length} listed)`,
        fix:
          `sign with a listed key (engram mcp sign ${server.name} --key FILE) or add the signer's public key to ${keysAt}`,
      });
  }
  return { checks: [versionCheck, digestCheck, signatureCheck], digest };
}
