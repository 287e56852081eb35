/**
 * @module The Ask and Ingest pages: forms the script drives (the answer streams in; uploads show
 * each job's progress), with live regions so a screen reader hears the outcome.
 */
import type { Brain } from "../../core/types.ts";
import type { ConsoleActor } from "./console_actor.ts";
import { markup, type SafeHtml } from "./html.ts";
import { brainApi } from "./pages_memory.ts";

/** The Ask page. */
export function askBody(brain: Brain): SafeHtml {
  return markup`
    <form class="ask" data-action="ask" data-url="${brainApi(brain)}/ask">
      <label for="question">Question</label>
      <input id="question" name="question" required maxlength="4000">
      <label
        class="check"><input type="checkbox" name="strict"> Strict: answer only what the passages state</label>
      <p class="form-status" role="status" aria-live="polite"></p>
      <button type="submit">Ask</button>
    </form>
    <section aria-labelledby="answer-h">
      <h2 id="answer-h">Answer</h2>
      <p id="answer-state" role="status" aria-live="polite"></p>
      <div id="answer" class="answer" aria-live="polite"></div>
      <h3>Sources</h3>
      <ol id="citations" class="citations"></ol>
    </section>
  `;
}

/** The Ingest page (write tier). */
export function ingestBody(actor: ConsoleActor, brain: Brain, o: { uploads: boolean }): SafeHtml {
  const api = brainApi(brain);
  return markup`<p>Files are read as <code>engram ingest</code> reads them: markdown, text, PDF or JSON, at most 25 MiB each, stored under <code>/ingest/upload/</code>. Each becomes a background job; its progress shows below.</p>
${
    o.uploads
      ? markup`
        <form class="upload" data-action="upload" data-url="${api}/upload">
          <label for="files">Files</label>
          <input id="files" name="files" type="file" multiple>
          <label for="folder">Or a folder</label>
          <input id="folder" name="folder" type="file" webkitdirectory multiple>
          <p class="form-status" role="status" aria-live="polite"></p>
          <button type="submit">Upload</button>
        </form>
        <h2>Jobs</h2>
        <ul id="jobs" class="jobs" aria-live="polite"></ul>
      `
      : markup`<p class="notice info">Uploads are not available on this server.</p>`
  }
${
    actor.allows("memory_ingest_url")
      ? markup`
        <h2>A web page</h2>
        <form class="ingest-url" data-action="ingest-url" data-url="${api}/ingest-url">
          <label for="url">URL</label>
          <input id="url" name="url" type="url" required>
          <p class="form-status" role="status" aria-live="polite"></p>
          <button type="submit">Fetch and store</button>
        </form>
      `
      : ""
  }`;
}
