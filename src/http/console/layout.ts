/**
 * @module The frame of every console page: the head (one stylesheet, one script, the CSRF token in
 * a meta tag: nothing inline), a skip link, the navigation the token's tier allows, and the main
 * region. Controls a tier does not reach are not drawn; the server refuses them anyway.
 */
import type { Brain } from "../../core/types.ts";
import { assetUrl } from "./console_assets.ts";
import type { ConsoleActor } from "./console_actor.ts";
import { type HtmlValue, markup, type SafeHtml, seg } from "./html.ts";

/** What a page says about itself. */
export interface PageFrame {
  title: string;
  /** The signed-in actor; absent on the sign-in page. */
  actor?: ConsoleActor;
  csrf?: string;
  /** The brain the page is about, for the brain's navigation. */
  brain?: Brain;
  /** Which navigation entry is current. */
  current?: string;
  /** The events URL the page follows for live updates (docs/console.md#live-updates). */
  live?: string;
  body: HtmlValue;
}

/** A whole page. */
export function page(frame: PageFrame): SafeHtml {
  return markup`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · engram</title>
<link rel="icon" href="${assetUrl("icon.svg")}" type="image/svg+xml">
<link rel="stylesheet" href="${assetUrl("console.css")}">
<script type="module" src="${assetUrl("console.js")}"></script>
${frame.csrf ? markup`<meta name="engram-csrf" content="${frame.csrf}">` : ""}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/console/">engram</a>
${frame.actor ? nav(frame) : ""}
</header>
<main id="main" tabindex="-1"${frame.live ? markup` data-live="${frame.live}"` : ""}>
<h1>${frame.title}</h1>
${
    frame.live
      ? markup`<p id="live-status" class="live-status" role="status" aria-live="polite"></p>`
      : ""
  }
${frame.body}
</main>
</body>
</html>`;
}

function nav(frame: PageFrame): SafeHtml {
  const actor = frame.actor!;
  const b = frame.brain;
  const link = (key: string, href: string, label: string) =>
    markup`<li><a href="${href}"${
      frame.current === key ? markup` aria-current="page"` : ""
    }>${label}</a></li>`;
  const base = b ? `/console/b/${seg(b.slug)}` : "";
  const brainLinks = b
    ? [
      link("search", `${base}/search`, "Search"),
      link("timeline", `${base}/timeline`, "Timeline"),
      link("ask", `${base}/ask`, "Ask"),
      link("synthesis", `${base}/synthesis`, "Synthesis"),
      actor.can("write") ? link("ingest", `${base}/ingest`, "Ingest") : "",
    ]
    : "";
  return markup`<nav aria-label="Main">
<ul>
${link("brains", "/console/", "Brains")}
${brainLinks}
${actor.can("admin") ? link("upstreams", "/console/upstreams", "Upstream servers") : ""}
${actor.can("admin") ? link("tokens", "/console/tokens", "Tokens") : ""}
</ul>
</nav>
<div class="who">
<span>${actor.grant.clientId} · ${actor.grant.tier}${actor.operator ? " · operator" : ""}</span>
<button type="button" class="link" data-action="sign-out">Sign out</button>
</div>`;
}

/** A notice in the page (role=status for success, alert for a problem). */
export function notice(kind: "info" | "error", text: HtmlValue): SafeHtml {
  return markup`<p class="notice ${kind}" role="${
    kind === "error" ? "alert" : "status"
  }">${text}</p>`;
}

/** A short date-time for tables: `2026-05-01 12:00`. */
export function when(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 16).replace("T", " ") : "";
}

/** A table of plain cells under a row of column headers; nothing when there are no rows. */
export function dataTable(heads: readonly string[], rows: readonly HtmlValue[][]): SafeHtml | "" {
  if (!rows.length) return "";
  return markup`
        <table>
          <thead>
            <tr>${heads.map((h) => markup`<th scope="col">${h}</th>`)}</tr>
          </thead>
          <tbody>${rows.map((r) => markup`<tr>${r.map((c) => markup`<td>${c}</td>`)}</tr>`)}</tbody>
        </table>
      `;
}
