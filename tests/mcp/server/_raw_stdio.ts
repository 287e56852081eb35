/** @module A raw `engram stdio` process for protocol tests: JSON lines in, JSON lines out. */
import { engramCommandArgs, engramEnv } from "../../helpers.ts";

/** A raw `engram stdio` process: write lines, read JSON lines back. */
export function spawnRaw(
  dataDir: string,
  args: string[] = [],
  extraEnv: Record<string, string> = {},
) {
  const child = new Deno.Command(Deno.execPath(), {
    args: engramCommandArgs(["stdio", ...args]),
    cwd: dataDir,
    env: engramEnv(dataDir, extraEnv),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(splitLines())
    .getReader();
  return {
    child,
    send: (text: string) => writer.write(new TextEncoder().encode(text + "\n")),
    /**
     * The next message, past the session-ready log notice that follows notifications/initialized
     * (stdio_logging_completion_test.ts checks it): protocol tests read only their own replies.
     */
    next: async () => {
      for (;;) {
        const { value, done } = await lines.read();
        if (done) throw new Error("stdout closed");
        const message = JSON.parse(value) as Record<string, unknown>;
        if (!isReadyNotice(message)) return message;
      }
    },
    end: async () => {
      await writer.close();
      const rest: string[] = [];
      for (let r = await lines.read(); !r.done; r = await lines.read()) rest.push(r.value);
      const status = await child.status;
      const stderr = await new Response(child.stderr).text();
      return { code: status.code, rest, stderr };
    },
  };
}

function isReadyNotice(m: Record<string, unknown>): boolean {
  const data = (m.params as { data?: { message?: unknown } } | undefined)?.data;
  return m.method === "notifications/message" && data?.message === "session ready";
}

function splitLines(): TransformStream<string, string> {
  let buf = "";
  return new TransformStream({
    transform(chunk, controller) {
      buf += chunk;
      const parts = buf.split("\n");
      buf = parts.pop()!;
      for (const p of parts) if (p) controller.enqueue(p);
    },
    flush(controller) {
      if (buf) controller.enqueue(buf);
    },
  });
}

/** An initialize request line. */
export const INIT = (version = "2025-11-25") =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });

/**
 * Calls a tool with a progress token over raw stdio and returns every progress notification
 * and the result, in the order the server wrote them. (The SDK client handles notifications a
 * microtask late, so it can drop the last ones when they share a read with the response.)
 */
export async function rawCallWithProgress(
  dataDir: string,
  o: { args?: string[]; env?: Record<string, string>; tool: string; arguments: unknown },
): Promise<
  {
    progress: { progress: number; message?: string; total?: number }[];
    result: Record<string, unknown>;
  }
> {
  const p = spawnRaw(dataDir, o.args ?? [], o.env ?? {});
  await p.send(INIT());
  await p.next();
  await p.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  await p.send(JSON.stringify({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: o.tool, arguments: o.arguments, _meta: { progressToken: "tok-1" } },
  }));
  const progress: { progress: number; message?: string; total?: number }[] = [];
  for (;;) {
    const m = await p.next();
    if (m.method === "notifications/progress") {
      const params = m.params as { progressToken: unknown; progress: number };
      if (params.progressToken !== "tok-1") throw new Error("progress token not echoed verbatim");
      progress.push(params);
    } else if (m.id === 2) {
      await p.end();
      return { progress, result: m.result as Record<string, unknown> };
    }
  }
}
