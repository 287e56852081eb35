/**
 * @module The consent page engram's /authorize serves (docs/connectors.md#the-consent-page):
 * server-rendered HTML with no script and no inline style, every untrusted value escaped, under a
 * strict Content-Security-Policy; and its stylesheet.
 */
import { OAUTH_PATHS } from "./metadata.ts";

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The hidden fields that carry the authorization request through the form, in a fixed order. */
export const REQUEST_FIELDS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "code_challenge",
  "code_challenge_method",
  "state",
  "resource",
  "scope",
] as const;

/** What the page shows about the request and the client. */
export interface ConsentView {
  /** The hidden fields' values, by name (REQUEST_FIELDS). */
  request: Record<(typeof REQUEST_FIELDS)[number], string>;
  /** The client's own name (untrusted), or null. */
  clientName: string | null;
  clientId: string;
  /** `scheme://host[:port]` of the redirect URI: where the browser goes afterwards. */
  redirectOrigin: string;
  /** What the client asks for, in words. */
  asks: string;
  csrf: string;
  /** A refusal of the last attempt (a wrong token), shown above the form. */
  problem?: string;
}

/**
 * Security headers of every page: nothing but this origin's own files, no framing (clickjacking),
 * no referrer to other sites. `form-action` lists the redirect's origin too, since browsers apply
 * it to the redirect that follows the form's POST.
 */
export function pageHeaders(formAction: string[] = []): Record<string, string> {
  const csp = [
    "default-src 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    `form-action 'self'${formAction.map((o) => ` ${o}`).join("")}`,
  ].join("; ");
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": csp,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    // `same-origin`, not `no-referrer`: with no-referrer browsers send `Origin: null` on the form's
    // POST, which the Origin check must refuse.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
  };
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${OAUTH_PATHS.consentCss}">
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** The consent form. */
export function consentPage(view: ConsentView): string {
  const who = view.clientName === null
    ? `<strong>An unnamed application</strong> (client id <code>${
      escapeHtml(view.clientId)
    }</code>)`
    : `<strong>${escapeHtml(view.clientName)}</strong> (client id <code>${
      escapeHtml(view.clientId)
    }</code>)`;
  const hidden = REQUEST_FIELDS.map((name) =>
    `<input type="hidden" name="${name}" value="${escapeHtml(view.request[name])}">`
  ).join("\n");
  const problem = view.problem
    ? `<p class="problem" role="alert">${escapeHtml(view.problem)}</p>\n`
    : "";
  return layout(
    "Connect to engram",
    `<h1>Connect to engram</h1>
<p>${who} asks to use this engram server.</p>
<dl>
<dt>It asks for</dt><dd>${escapeHtml(view.asks)}</dd>
<dt>It will get</dt><dd>never more than the token or pairing code you enter allows: its tier and its brains, at most what it asks for.</dd>
<dt>Afterwards your browser goes to</dt><dd><code>${escapeHtml(view.redirectOrigin)}</code></dd>
</dl>
<p class="note">The name above is the application's own description of itself. Allow only if you started this connection and the address is the one you expect.</p>
${problem}<form method="post" action="${OAUTH_PATHS.authorize}">
${hidden}
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label for="token">engram token or pairing code</label>
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false">
<p class="hint">Create a pairing code with <code>engram tokens pair --tier write</code>; it works once, for 10 minutes.</p>
<div class="buttons">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>`,
  );
}

/** A page saying why the request cannot go on; it never redirects to an unverified client. */
export function errorPage(message: string): string {
  return layout(
    "engram: cannot connect",
    `<h1>This connection request cannot be completed</h1>
<p class="problem">${escapeHtml(message)}</p>
<p>Start the connection again from the application. If it keeps failing, tell whoever runs this engram server what this page says.</p>`,
  );
}

/** The stylesheet (served from this origin, as the policy requires). */
export const CONSENT_CSS =
  `body{font-family:system-ui,sans-serif;background:#f6f6f4;color:#1d1d1b;margin:0}
main{max-width:34rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.12)}
h1{font-size:1.4rem;margin-top:0}
dt{font-weight:600;margin-top:.8rem}
dd{margin:.2rem 0 0 0}
code{font-size:.9em;word-break:break-all}
label{display:block;font-weight:600;margin-top:1.2rem}
input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;margin-top:.3rem;font-size:1rem}
.hint,.note{color:#555;font-size:.9rem}
.problem{color:#a40000;font-weight:600}
.buttons{display:flex;gap:.8rem;margin-top:1.2rem}
button{padding:.55rem 1.3rem;font-size:1rem;border-radius:6px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1d4ed8}
`;

/** The stylesheet's answer. */
export function consentCss(): Response {
  return new Response(CONSENT_CSS, {
    headers: {
      "Content-Type": "text/css; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
