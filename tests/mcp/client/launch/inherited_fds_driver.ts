/**
 * @module Run by stdio_process_test.ts with a descriptor it did not open (`7<FILE`, set up by the
 * shell that starts it, so it lacks close-on-exec as an inherited one does): starts tree_server
 * under the profile in its first argument through startStdioServer, and prints one JSON line —
 * the targets of its own descriptors and of the server's.
 *
 * Run: `deno run -A inherited_fds_driver.ts standard|restricted 7<FILE`
 */
import { startStdioServer } from "../../../../src/mcp/client/launch/stdio_process.ts";
import { tempDir } from "../../../helpers.ts";
import {
  jsonLines,
  launchable,
  TEST_DENO,
  testFacts,
  testSigner,
  token,
  TREE_SERVER,
  UPSTREAM_DIR,
} from "../launch_setup.ts";

const profile = Deno.args[0] === "restricted" ? "restricted" : "standard";
const own = [...Deno.readDirSync("/proc/self/fd")].map((e) => {
  try {
    return Deno.readLinkSync(`/proc/self/fd/${e.name}`);
  } catch {
    return "";
  }
});
const signer = await testSigner();
await using dir = await tempDir();
const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
const server = await launchable(signer, {
  name: "fds",
  command: profile === "restricted" ? TEST_DENO : "deno",
  args: ["run", "-A", "--no-config", TREE_SERVER, token()],
  sandbox_profile: profile,
  ...(profile === "restricted" ? { cwd: UPSTREAM_DIR } : {}),
});
const proc = await startStdioServer(server, { facts });
const lines = jsonLines(proc.stdout);
try {
  await lines.next();
  const writer = proc.stdin.getWriter();
  await writer.write(new TextEncoder().encode("proc\n"));
  writer.releaseLock();
  const child = (await lines.next()).result as { fds: string[] };
  console.log(JSON.stringify({ own, child: child.fds }));
} finally {
  await lines.close();
  await proc.stop({ graceMs: 1000 });
}
