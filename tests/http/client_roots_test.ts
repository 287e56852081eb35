import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { ListRootsRequestSchema, type Transport } from "../../src/mcp/sdk.ts";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "../../src/mcp/sdk_client.ts";
import { callErr, connectLikeAClient, tempDir } from "../helpers.ts";
import { startServer } from "./http_helpers.ts";

/**
 * Over HTTP the client runs elsewhere: the folders it shares as roots are its own machine's, so
 * they never widen what memory_ingest_file may read here — on either HTTP transport.
 */
Deno.test("http: a client declaring roots does not widen file access (Streamable HTTP and legacy SSE)", async () => {
  await using dir = await tempDir();
  const base = await Deno.realPath(dir.path);
  await Deno.mkdir(`${base}/project`);
  const note = `${base}/project/note.md`;
  await Deno.writeTextFile(note, "# Note\n\nShared as a root by the client.\n");
  await using srv = await startServer({
    mcp: {
      ingest: {
        roots: [],
        cwd: base,
        queueBytes: Infinity,
        allowedUrlHosts: [],
        urlTimeoutMs: 1_000,
      },
    },
  });
  const headers = { Authorization: "Bearer tok-write" };
  const transports: [string, () => Transport][] = [
    [
      "streamable",
      () => new StreamableHTTPClientTransport(new URL(srv.mcp), { requestInit: { headers } }),
    ],
    [
      "legacy sse",
      () => new SSEClientTransport(new URL(`${srv.url}/sse`), { requestInit: { headers } }),
    ],
  ];
  for (const [name, transport] of transports) {
    let asked = 0;
    const client = new Client(
      { name: "roots-over-http", version: "1.0.0" },
      { capabilities: { roots: { listChanged: true } } },
    );
    client.setRequestHandler(ListRootsRequestSchema, () => {
      asked++;
      return { roots: [{ uri: pathToFileURL(`${base}/project`).href }] };
    });
    await connectLikeAClient(client, transport());
    try {
      await client.sendRootsListChanged();
      const e = await callErr(client, "memory_ingest_file", { path: note });
      assert.equal(e.code, "forbidden", name);
      assert.equal(
        e.message,
        `reading files is off: no file roots are allowed in this session; to allow it, add the folder holding ${note} to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`,
        name,
      );
      assert.equal(asked, 0, `${name}: the server never asks an HTTP client for its roots`);
    } finally {
      await client.close();
    }
  }
});
