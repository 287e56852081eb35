/** @module Whether Debian's chromium is here for the browser tests (without loading playwright-core). */

/** Where Debian puts chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  try {
    Deno.statSync(CHROMIUM);
    return null;
  } catch {
    return `skipping the console browser tests: ${CHROMIUM} is not installed (apt-get install chromium)`;
  }
}
