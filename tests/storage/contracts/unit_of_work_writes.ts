/**
 * @module Writes on several ports at once, and which of them a reader can see: what the
 * unit-of-work cases commit, roll back and isolate.
 */
import { type Fixture, message, sessionOf, uid, writeDoc } from "./backend.ts";

/** What one unit of work wrote: a document, a session and a job. */
export interface Written {
  path: string;
  session: string;
  job: string;
}

/** Writes a document, a session with a message, and a job. */
export async function writeAll(f: Fixture, tag: string): Promise<Written> {
  const path = `/uow/${tag}.md`;
  await writeDoc(f.storage.documents, f.brain.id, path, [`${tag} pangolin`]);
  const session = (await f.storage.sessions.createSession(sessionOf(f.brain.id))).id;
  await f.storage.sessions.appendMessages(session, [message(tag)]);
  const job = (await f.storage.jobs.enqueueJob({
    id: uid("job"),
    kind: "embed",
    brain_id: f.brain.id,
    payload: { path },
  })).id;
  return { path, session, job };
}

/** Whether each of the writes is visible to a reader outside any unit of work. */
export async function visible(f: Fixture, w: Written): Promise<Record<keyof Written, boolean>> {
  return {
    path: (await f.storage.documents.findDocument(f.brain.id, { path: w.path })) !== null,
    session: (await f.storage.sessions.getSession(w.session)) !== null,
    job: (await f.storage.jobs.getJob(w.job)) !== null,
  };
}

/** Every write visible. */
export const ALL = { path: true, session: true, job: true };
/** No write visible. */
export const NONE = { path: false, session: false, job: false };
