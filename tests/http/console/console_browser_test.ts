/**
 * The console's browser tests (browser/*.ts), each run in a child `deno test --allow-all`: they
 * drive Debian's chromium with playwright-core under Deno's npm support, and playwright-core reads
 * /proc at import (its WSL probe) and asks for `sys` access, which the suite's own permissions do
 * not grant. Where chromium is missing they are skipped, saying why.
 */
import { browserMissing } from "./_chromium.ts";

const missing = browserMissing();
if (missing) console.log(missing);

for (const file of ["memory_pages.ts", "synthesis_pages.ts", "upstream_pages.ts"]) {
  Deno.test({
    name: `console in chromium: ${file}`,
    ignore: missing !== null,
    fn: async () => {
      const path = new URL(`./browser/${file}`, import.meta.url).pathname;
      const run = await new Deno.Command(Deno.execPath(), {
        // Type-checked with the rest of tests/ by `deno task check`; not again per child.
        args: ["test", "--allow-all", "--no-check", path],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr);
      if (run.code !== 0) throw new Error(`deno test ${file} failed:\n${out}`);
    },
  });
}
