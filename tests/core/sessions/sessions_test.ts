import assert from "node:assert/strict";
import { EngramError } from "../../../src/core/errors.ts";
import { openSession, requireSession } from "../../../src/core/sessions/sessions.ts";
import { ADMIN, openService, tempDir } from "../../helpers.ts";

Deno.test("sessions: a session id of another brain is not found here, with the fix named", async () => {
  await using dir = await tempDir();
  using svc = await openService(dir.path);
  const home = await svc.service.brain(ADMIN);
  const other = await svc.service.createBrain({ name: "Other", visibility: "private" });
  await openSession(svc.storage.sessions, home, { sessionId: "shared-id", caller: ADMIN });
  const foreign = (e: unknown) =>
    e instanceof EngramError && e.code === "not_found" &&
    /session "shared-id" not found in brain "other" \(it belongs to another brain\); pass that brain or use a new session id/
      .test(e.message);
  await assert.rejects(
    openSession(svc.storage.sessions, other, { sessionId: "shared-id", caller: ADMIN }),
    foreign,
  );
  await assert.rejects(requireSession(svc.storage.sessions, other, "shared-id"), foreign);
  assert.equal((await requireSession(svc.storage.sessions, home, "shared-id")).brain_id, home.id);
});
