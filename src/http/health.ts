/** @module Liveness and readiness endpoints for supervisors; unauthenticated, so they say nothing else. */

/** GET /healthz: the process answers. */
export function healthz(): Response {
  return new Response("ok\n", {
    headers: { "Content-Type": "text/plain", "Cache-Control": "no-store" },
  });
}

/**
 * GET /readyz: 200 when the database answers, 503 otherwise — and from the moment it was found
 * corrupt (docs/operations.md#corrupt-or-full-database), which `ready` reports.
 */
export async function readyz(ready: () => Promise<boolean>): Promise<Response> {
  let ok = false;
  try {
    ok = await ready();
  } catch {
    ok = false;
  }
  return new Response(ok ? "ready\n" : "not ready\n", {
    status: ok ? 200 : 503,
    headers: { "Content-Type": "text/plain", "Cache-Control": "no-store" },
  });
}
