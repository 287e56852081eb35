/**
 * @module The upstream pages (admin tier): every server (status, exposure per tier, the audit
 * report), and one server's capabilities with their approval state and the approved and live
 * definitions side by side. Upstream text (descriptions, definitions, errors) is data, escaped like any
 * stored note; approve and revoke controls are drawn only for an operator token.
 */
import { TIERS } from "../../core/types.ts";
import type { ConsoleActor } from "./console_actor.ts";
import type {
  AuditReportView,
  CapabilityView,
  ExposureView,
  UpstreamServerView,
} from "./console_deps.ts";
import { markup, type SafeHtml, seg } from "./html.ts";
import { dataTable, notice, when } from "./layout.ts";
import { NO_STATUS, upstreamEvent } from "./watch_events.ts";

/** The upstream servers page. */
export function upstreamsBody(
  o: { servers: UpstreamServerView[]; exposure: ExposureView; report: AuditReportView },
): SafeHtml {
  const { servers, exposure, report } = o;
  return markup`<section aria-labelledby="servers-h">
<h2 id="servers-h">Servers</h2>
${
    servers.length
      ? markup`
        <table>
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col">Transport</th>
              <th scope="col">Status</th>
              <th scope="col">Last seen</th>
              <th scope="col">Fix</th>
            </tr>
          </thead>
          <tbody>${
        servers.map((s) =>
          markup`
              <tr data-upstream="${s.name}">
                <td><a href="/console/upstreams/${
            seg(s.name)
          }">${s.name}</a> <span class="muted">${s.origin} · ${s.trust}</span></td>
                <td>${s.transport}</td>
                <td class="readiness-${s.readiness}" data-field="status">${
            upstreamEvent(s).status
          }</td>
                <td data-field="last_status">${s.lastStatus ?? NO_STATUS}</td>
                <td data-field="fix">${s.blocked?.fix ?? ""}</td>
              </tr>
            `
        )
      }</tbody>
        </table>
      `
      : markup`
        <p
          class="muted">No upstream servers are configured (docs: engram mcp import, engram mcp marketplace).</p>
      `
  }
</section>
<section aria-labelledby="exposure-h">
<h2 id="exposure-h">What agents see</h2>
<table>
<thead><tr><th scope="col">Tier</th><th scope="col">Tools</th><th scope="col">Prompts</th><th scope="col">Templates</th></tr></thead>
<tbody>${
    TIERS.map((t) => {
      const at = exposure.tiers[t];
      const list = (names: string[]) => names.length ? names.join(", ") : "none";
      return markup`
        <tr>
          <th scope="row">${t}</th>
          <td>${list(at.tools)}</td>
          <td>${list(at.prompts)}</td>
          <td>${list(at.templates)}</td>
        </tr>
      `;
    })
  }</tbody>
</table>
${
    exposure.hidden.length
      ? markup`
        <h3>Not shown to agents</h3>
        <ul>${
        exposure.hidden.map((h) =>
          markup`<li>${h.server} ${h.kind} ${h.name}: ${h.reason} — ${h.detail}</li>`
        )
      }</ul>
      `
      : ""
  }
</section>
<section aria-labelledby="report-h">
<h2 id="report-h">Audit report</h2>
<p>${report.calls} call(s), ${report.errors} error(s) since ${when(report.since)}${
    report.dropped_rows ? `; ${report.dropped_rows} audit row(s) dropped` : ""
  }.</p>
${
    dataTable(
      ["Kind", "Name", "Client", "Calls", "Errors", "p50 ms", "p95 ms"],
      report.lines.map((l) => [l.kind, l.name, l.client_id, l.calls, l.errors, l.p50_ms, l.p95_ms]),
    )
  }
<h3>Upstream traffic</h3>
<p>${report.upstream.calls} call(s), ${report.upstream.errors} error(s).</p>
${
    dataTable(
      ["Server", "Calls", "Errors", "p50 ms", "p95 ms"],
      report.upstream.servers.map((s) => [s.server, s.calls, s.errors, s.p50_ms, s.p95_ms]),
    )
  }
<h3>Operator actions</h3>
${
    report.operator_actions.length
      ? markup`<ul>${
        report.operator_actions.map((a) =>
          markup`<li>${when(a.at)} ${a.user}: ${a.command}${a.server ? ` ${a.server}` : ""} — ${
            a.changes.join("; ")
          }</li>`
        )
      }</ul>`
      : markup`<p class="muted">None.</p>`
  }
</section>`;
}

/** One server's page. */
export function upstreamBody(
  actor: ConsoleActor,
  o: { server: UpstreamServerView; capabilities: CapabilityView[] },
): SafeHtml {
  const { server, capabilities } = o;
  const api = `/console/api/upstreams/${seg(server.name)}`;
  return markup`
    <p><a href="/console/upstreams">All servers</a></p>
    <p data-upstream="${server.name}">${server.transport} · ${server.origin} · trust ${server.trust} · <span
        class="readiness-${server.readiness}" data-field="readiness">${server.readiness}</span> · last: <span data-field="last_status">${
    server.lastStatus ?? NO_STATUS
  }</span></p>
    ${
    server.blocked
      ? notice(
        "error",
        `${server.blocked.rule}: ${server.blocked.detail}; fix: ${server.blocked.fix}`,
      )
      : ""
  }
    <details>
      <summary>Launch rules</summary>
      <ul>${
    server.checks.map((c) => markup`<li>${c.ok ? "pass" : "fail"} ${c.rule}: ${c.detail}</li>`)
  }</ul>
    </details>
    ${
    actor.operator ? "" : markup`
      <p
        class="muted">Approving and revoking are the operator's: sign in with a token made by <code>engram tokens create --operator --tier admin</code>, or use <code>engram mcp approvals</code>.</p>
    `
  }
    <p class="form-status" id="page-status" role="status" aria-live="polite"></p>
    ${
    capabilities.length ? capabilities.map((c, i) => capability(actor, c, { api, i })) : markup`
      <p
        class="muted">No tool, prompt or template seen yet: run <code>engram mcp discover ${server.name}</code> or <code>engram mcp review ${server.name}</code>.</p>
    `
  }
  `;
}

function capability(
  actor: ConsoleActor,
  c: CapabilityView,
  o: { api: string; i: number },
): SafeHtml {
  const id = `cap-${o.i}`;
  const changed = c.approved !== null && c.live !== null && c.approved !== c.live;
  const canApprove = c.live !== null &&
    (c.state === "pending" || c.state === "changed" || c.state === "revoked");
  return markup`<section class="capability" aria-labelledby="${id}-h">
<h2 id="${id}-h">${c.kind} ${c.name} <span class="state-${c.state}">(${c.state})</span></h2>
<p class="description">${c.description || "(no description)"}</p>
<p class="muted">${
    c.exposedTier
      ? `exposed at ${c.exposedTier}${c.exposedAs ? ` as ${c.exposedAs}` : ""}`
      : "not exposed"
  }${c.approvedAt ? ` · approved ${when(c.approvedAt)} by ${c.approvedBy ?? "?"}` : ""}${
    c.renamedFrom ? ` · same definition as approved ${c.renamedFrom}: review it again` : ""
  }</p>
${
    changed
      ? markup`
        <div class="sides" aria-label="Definition diff">
          <div>
            <h3>Approved</h3>
            <pre class="json">${c.approved}</pre>
          </div>
          <div>
            <h3>Listed now</h3>
            <pre class="json">${c.live}</pre>
          </div>
        </div>
      `
      : markup`
        <details>
          <summary>Definition</summary>
          <pre class="json">${c.live ?? c.approved}</pre>
        </details>
      `
  }
${
    actor.operator
      ? markup`<div class="actions">${
        canApprove
          ? markup`
            <label for="${id}-tier">Expose at</label>
            <select id="${id}-tier"><option value="">not exposed</option>${
            TIERS.map((t) =>
              markup`
                <option value="${t}" ${
                c.exposedTier === t
                  ? markup`
                    selected
                  `
                  : ""
              }>${t}</option>
              `
            )
          }</select>
            <button type="button" data-action="approve" data-url="${o.api}/approve" data-kind="${c.kind}"
              data-name="${c.name}" data-tier-from="${id}-tier">Approve</button>
          `
          : ""
      }${
        c.state === "approved" || c.state === "changed" || c.state === "missing"
          ? markup`
            <button type="button" data-action="revoke" data-url="${o.api}/revoke" data-kind="${c.kind}"
              data-name="${c.name}">Revoke</button>
          `
          : ""
      }</div>`
      : ""
  }
</section>`;
}
