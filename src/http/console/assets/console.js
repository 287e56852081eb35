// engram console: the little script the server-rendered pages need (docs/console.md#assets).
// Hand-written, no bundler, no dependency. It only ever sets text (textContent), never markup,
// so nothing the server sends back can become script. Every write carries the CSRF header.

const csrf = document.querySelector('meta[name="engram-csrf"]')?.getAttribute("content") ?? "";

/** A request to the console's own API; throws with the server's message on an error status. */
async function api(method, url, body, extra = {}) {
  const headers = { "X-Engram-CSRF": csrf, ...extra };
  let payload = body;
  if (body !== undefined && !(body instanceof Blob) && !(body instanceof ArrayBuffer)) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(url, { method, headers, body: payload, credentials: "same-origin" });
  const type = res.headers.get("content-type") ?? "";
  const data = type.includes("application/json") ? await res.json() : null;
  if (!res.ok) {
    throw new Error(
      data?.error ? `${data.error.code}: ${data.error.message}` : `HTTP ${res.status}`,
    );
  }
  return data;
}

/** Says something in a form's status line (or the page's first alert region). */
function say(scope, text, kind = "info") {
  const out = scope.querySelector(".form-status") ?? document.querySelector("#page-status");
  if (!out) return;
  out.textContent = text;
  out.classList.toggle("error", kind === "error");
  out.setAttribute("role", kind === "error" ? "alert" : "status");
}

/** Runs a write, saying its failure next to the control that started it. */
async function guarded(scope, work) {
  const buttons = scope.querySelectorAll("button");
  buttons.forEach((b) => (b.disabled = true));
  try {
    await work();
  } catch (err) {
    say(scope, err.message, "error");
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

const forms = {
  "sign-in": (form) =>
    guarded(form, async () => {
      await api("POST", "/console/api/session", { token: form.elements.token.value });
      location.assign(form.dataset.then || "/console/");
    }),
  edit: (form) =>
    guarded(form, async () => {
      const tags = form.elements.tags.value.split(",").map((t) => t.trim()).filter(Boolean);
      await api("PATCH", form.dataset.url, {
        title: form.elements.title.value,
        tags,
        content: form.elements.content.value,
      });
      location.assign(form.dataset.then);
    }),
  ask: (form) => guarded(form, () => ask(form)),
  upload: (form) => guarded(form, () => upload(form)),
  "ingest-url": (form) =>
    guarded(form, async () => {
      const r = await api("POST", form.dataset.url, { url: form.elements.url.value });
      say(form, `Stored ${r.result.path}`);
    }),
  "token-create": (form) =>
    guarded(form, async () => {
      const brains = form.elements.brains.value.split(",").map((t) => t.trim()).filter(Boolean);
      const r = await api("POST", "/console/api/tokens", {
        client: form.elements.client.value,
        tier: form.elements.tier.value,
        ...(brains.length ? { brains } : {}),
      });
      const out = document.querySelector("#new-token");
      out.hidden = false;
      out.querySelector("code").textContent = r.token;
      out.querySelector("p.muted").textContent =
        `Token ${r.record.id} for ${r.record.client_id} (${r.record.tier}); shown once — copy it now.`;
      out.focus();
    }),
};

const buttons = {
  "sign-out": async () => {
    await api("DELETE", "/console/api/session");
    location.assign("/console/sign-in");
  },
  forget: async (b) => {
    if (
      !confirm(
        "Forget this document? It leaves search; its versions are kept and it can be restored.",
      )
    ) return;
    await api("POST", b.dataset.url);
    location.assign(b.dataset.then);
  },
  restore: async (b) => {
    await api("POST", b.dataset.url);
    location.reload();
  },
  approve: async (b) => {
    const tier = document.querySelector(`#${b.dataset.tierFrom}`)?.value ?? "";
    await api("POST", b.dataset.url, {
      kind: b.dataset.kind,
      name: b.dataset.name,
      expose: tier || null,
    });
    location.reload();
  },
  revoke: async (b) => {
    if (!confirm(`Revoke ${b.dataset.kind} ${b.dataset.name}? Agents stop seeing it at once.`)) {
      return;
    }
    await api("POST", b.dataset.url, { kind: b.dataset.kind, name: b.dataset.name });
    location.reload();
  },
  "token-revoke": async (b) => {
    if (!confirm(`Revoke token ${b.dataset.id}? Its holder is refused from the next request.`)) {
      return;
    }
    await api("POST", `/console/api/tokens/${encodeURIComponent(b.dataset.id)}/revoke`);
    location.reload();
  },
};

/** Reads an SSE body, calling `on(event, data)` per event. */
async function readEvents(res, on) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (data) on(event, JSON.parse(data));
    }
  }
}

async function ask(form) {
  const answer = document.querySelector("#answer");
  const sources = document.querySelector("#citations");
  const state = document.querySelector("#answer-state");
  answer.textContent = "";
  sources.replaceChildren();
  state.textContent = "Answering…";
  state.className = "notice info";
  const res = await fetch(form.dataset.url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Engram-CSRF": csrf,
      Accept: "text/event-stream",
    },
    body: JSON.stringify({
      question: form.elements.question.value,
      strict: form.elements.strict.checked,
    }),
    credentials: "same-origin",
  });
  if (!res.ok) {
    const data = await res.json().catch(() => null);
    throw new Error(
      data?.error ? `${data.error.code}: ${data.error.message}` : `HTTP ${res.status}`,
    );
  }
  await readEvents(res, (event, data) => {
    if (event === "delta") answer.textContent += data.text;
    if (event === "error") {
      state.textContent = `${data.code}: ${data.message}`;
      state.className = "notice error";
    }
    if (event === "done") {
      answer.textContent = data.answer;
      const notInMemory = data.grounded === false;
      state.textContent = notInMemory
        ? "Not in memory: the passages found do not answer this."
        : `Answered by ${data.provider}, ${data.citations.length} citation(s).`;
      state.className = notInMemory ? "notice not-in-memory" : "notice info";
      for (const c of data.citations) {
        const link = el("a", { href: c.href, text: c.title });
        sources.append(el("li", {}, [link, el("q", { text: c.quote })]));
      }
    }
  });
}

async function upload(form) {
  const files = [...form.elements.files.files, ...(form.elements.folder?.files ?? [])];
  if (files.length === 0) throw new Error("choose files or a folder first");
  const list = document.querySelector("#jobs");
  const jobs = new Map();
  for (const file of files) {
    const name = file.webkitRelativePath || file.name;
    const row = el("li", {}, [
      el("span", { text: name }),
      el("span", { class: "job-state", text: "uploading" }),
    ]);
    list.append(row);
    try {
      const r = await api("POST", `${form.dataset.url}?name=${encodeURIComponent(name)}`, file, {
        "Content-Type": "application/octet-stream",
      });
      if (r.job_id) {
        jobs.set(r.job_id, row);
        row.querySelector(".job-state").textContent = r.status;
        row.dataset.job = r.job_id;
      } else {
        row.querySelector(".job-state").textContent = r.reused ? "unchanged" : "completed";
      }
    } catch (err) {
      row.querySelector(".job-state").textContent = err.message;
      row.classList.add("error");
    }
  }
  if (jobs.size === 0) return;
  const query = [...jobs.keys()].map((j) => `job=${encodeURIComponent(j)}`).join("&");
  const source = new EventSource(`/console/events?${query}`);
  let open = jobs.size;
  source.addEventListener("job", (e) => {
    const job = JSON.parse(e.data);
    const row = jobs.get(job.id);
    if (!row) return;
    const stateText = job.status === "failed" ? `failed: ${job.error}` : job.status;
    row.querySelector(".job-state").textContent = stateText;
    if (job.status === "completed" || job.status === "failed") {
      if (job.result?.href) {
        row.querySelector("span").replaceChildren(
          el("a", { href: job.result.href, text: row.querySelector("span").textContent }),
        );
      }
      if (--open === 0) {
        source.close();
        say(form, "All uploads are done.");
      }
    }
  });
}

document.addEventListener("submit", (e) => {
  const form = e.target.closest("form[data-action]");
  const handler = form && forms[form.dataset.action];
  if (!handler) return;
  e.preventDefault();
  handler(form);
});

document.addEventListener("click", (e) => {
  const button = e.target.closest("button[data-action]");
  const handler = button && buttons[button.dataset.action];
  if (!handler) return;
  e.preventDefault();
  const scope = button.closest("section, form, main") ?? document.body;
  guarded(scope, () => handler(button));
});

// Live updates (docs/console.md#live-updates): a page that names an events URL follows it; the
// server pushes new versions and upstream status changes, and the page never polls.
const live = document.querySelector("main[data-live]");
if (live) {
  const source = new EventSource(live.dataset.live);
  const status = document.querySelector("#live-status");
  // Says whether the page is following (a test, or a curious reader, can see it is live).
  source.addEventListener("open", () => live.setAttribute("data-live-state", "open"));
  source.addEventListener("error", () => live.setAttribute("data-live-state", "reconnecting"));
  source.addEventListener("version", (e) => onVersion(JSON.parse(e.data), status));
  source.addEventListener("upstream", (e) => onUpstream(JSON.parse(e.data), status));
}

function onVersion(change, status) {
  const meta = document.querySelector("[data-document]");
  if (meta && meta.dataset.document === change.document_id) {
    if (change.action === "deleted") {
      status.replaceChildren("This document was just forgotten.");
    } else if (change.version > Number(meta.dataset.version)) {
      meta.dataset.version = String(change.version);
      status.replaceChildren(
        `Version ${change.version} was just written. `,
        el("a", { href: change.href, text: `Show version ${change.version}` }),
      );
    }
  }
  const rows = document.querySelector("tbody[data-live-changes]");
  if (rows) {
    const what = change.href ? el("a", { href: change.href, text: change.title }) : change.title;
    const cell = el("td", {}, [what, " ", el("span", { class: "muted", text: change.path })]);
    rows.prepend(el("tr", { class: "fresh" }, [
      el("td", { text: change.at.slice(0, 16).replace("T", " ") }),
      el("td", { text: change.action }),
      cell,
      el("td", { text: String(change.version) }),
    ]));
    if (!meta) status.textContent = `${change.action}: ${change.title} (version ${change.version})`;
  }
}

function onUpstream(server, status) {
  for (const row of document.querySelectorAll("[data-upstream]")) {
    if (row.dataset.upstream !== server.name) continue;
    let changed = false;
    for (const field of row.querySelectorAll("[data-field]")) {
      const text = server[field.dataset.field] ?? "";
      if (field.textContent === text) continue;
      changed = true;
      field.textContent = text;
      if (field.dataset.field === "status" || field.dataset.field === "readiness") {
        field.className = `readiness-${server.readiness}`;
      }
    }
    if (changed) {
      status.textContent = `${server.name}: ${server.status}${
        server.last_status ? ` (last: ${server.last_status})` : ""
      }`;
    }
  }
}
