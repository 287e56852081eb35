/**
 * @module `/authorize` (docs/connectors.md#the-consent-page): GET shows the consent page for a
 * checked authorization request; POST takes the person's decision and their proof (an engram
 * token or a pairing code) and sends the browser back to the client with a code or an error.
 * Errors about the client or its redirect URI are shown here, never redirected (RFC 6749 §4.1.2.1).
 */
import {
  type AuthorizationRequest,
  type AuthorizationServer,
  type OAuthClient,
  OAuthError,
  type OAuthErrorCode,
} from "../../core/oauth/authorization_types.ts";
import type { AddressLimiter } from "./address_limiter.ts";
import { consentPage, errorPage, pageHeaders, REQUEST_FIELDS } from "./consent_page.ts";
import type { ConsentCsrf } from "./csrf.ts";
import { readCapped } from "../jsonrpc_body.ts";
import { mediaType, parseForm } from "./oauth_responses.ts";

/** What /authorize works with. */
export interface AuthorizeDeps {
  server: AuthorizationServer;
  csrf: ConsentCsrf;
  /** `server.public_url` without a trailing slash: sent as `iss` (RFC 9207). */
  issuer: string;
  /** Consent POSTs per remote address: a pairing code must not be guessable by trying. */
  limiter: AddressLimiter;
  /** Words for what a request's `scope` asks (the domain's reading of scopes). */
  describeScope: (scope: string | null) => string;
}

/** The largest consent form body accepted. */
const MAX_FORM_BYTES = 16 * 1024;

type Fields = Map<string, string>;

/** A request that passed the checks, or the answer to send instead. */
type Checked = { request: AuthorizationRequest; client: OAuthClient } | { answer: Response };

/** `GET /authorize`: the consent page, or a redirect with an error once the client is verified. */
export async function authorizeGet(req: Request, deps: AuthorizeDeps): Promise<Response> {
  const parsed = parseForm(new URL(req.url).search.slice(1));
  if ("duplicate" in parsed) return page(400, `the parameter ${parsed.duplicate} was given twice`);
  const checked = await checkRequest(parsed.fields, deps);
  if ("answer" in checked) return checked.answer;
  const existing = deps.csrf.nonceOf(req);
  const fresh = existing === null ? deps.csrf.newNonce() : null;
  const nonce = existing ?? fresh!.nonce;
  const res = await renderConsent(checked, { fields: parsed.fields, nonce, deps, status: 200 });
  if (fresh) res.headers.append("Set-Cookie", fresh.setCookie);
  return res;
}

/** `POST /authorize`: the consent form's answer. */
export async function authorizePost(
  req: Request,
  options: { deps: AuthorizeDeps; remoteKey: string },
): Promise<Response> {
  const { deps } = options;
  const wait = deps.limiter.take(options.remoteKey);
  if (wait > 0) {
    const res = page(429, `too many attempts from your address; wait ${wait} s and try again`);
    res.headers.set("Retry-After", String(wait));
    return res;
  }
  if (mediaType(req) !== "application/x-www-form-urlencoded") {
    return page(415, "the consent form must be posted as application/x-www-form-urlencoded");
  }
  const text = await readCapped(req, MAX_FORM_BYTES);
  if (text === null) return page(413, `the consent form is larger than ${MAX_FORM_BYTES} bytes`);
  const parsed = parseForm(text);
  if ("duplicate" in parsed) return page(400, `the field ${parsed.duplicate} was given twice`);
  const fields = parsed.fields;
  const nonce = deps.csrf.nonceOf(req);
  const csrfProblem = await deps.csrf.check(fields.get("csrf"), {
    nonce,
    fields: requestValues(fields),
  });
  if (csrfProblem) return page(403, `${csrfProblem}; start again from the application`);
  // Checked again: the hidden fields came back from the browser, and the client may be gone.
  const checked = await checkRequest(fields, deps);
  if ("answer" in checked) return checked.answer;
  const decision = fields.get("decision");
  if (decision === "deny") {
    return redirectError(checked.request, {
      issuer: deps.issuer,
      error: "access_denied",
      description: "the person at the consent page denied the request",
    });
  }
  if (decision !== "allow") return page(400, "decision must be allow or deny");
  const retry = (problem: string) =>
    renderConsent(checked, { fields, nonce: nonce!, deps, status: 403, problem });
  const proof = (fields.get("token") ?? "").trim();
  if (proof === "") return await retry("enter an engram token or a pairing code to allow");
  const grant = await deps.server.proveIdentity(proof);
  if (grant === null) {
    return await retry(
      "that is not a live engram token or an unused, unexpired pairing code; check it and try again",
    );
  }
  let code: string;
  try {
    code = await deps.server.issueCode(checked.request, grant);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    if (!err.options.redirectable) return page(err.options.status ?? 400, err.message);
    return redirectError(checked.request, {
      issuer: deps.issuer,
      error: err.error,
      description: err.message,
    });
  }
  const to = new URL(checked.request.redirect_uri);
  to.searchParams.set("code", code);
  to.searchParams.set("state", checked.request.state);
  to.searchParams.set("iss", deps.issuer);
  return redirect(to);
}

/** The request's hidden-field values, in REQUEST_FIELDS order (what the CSRF token covers). */
function requestValues(fields: Fields): string[] {
  return REQUEST_FIELDS.map((name) => fields.get(name) ?? "");
}

/**
 * Checks an authorization request. The client and redirect URI come first: until both are
 * verified every refusal is a page; after, refusals go back to the client as redirects.
 */
async function checkRequest(fields: Fields, deps: AuthorizeDeps): Promise<Checked> {
  const clientId = fields.get("client_id") ?? "";
  const redirectUri = fields.get("redirect_uri") ?? "";
  if (clientId === "") return { answer: page(400, "the request names no client_id") };
  if (redirectUri === "") return { answer: page(400, "the request names no redirect_uri") };
  const request: AuthorizationRequest = {
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: fields.get("code_challenge") ?? "",
    // The method is checked below, once the client is known to be real.
    code_challenge_method: "S256",
    state: fields.get("state") ?? "",
    resource: fields.get("resource") ?? "",
    scope: fields.get("scope") || null,
  };
  let client: OAuthClient | null = null;
  let refusal: OAuthError | null = null;
  try {
    client = await deps.server.checkAuthorization(request);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    if (!err.options.redirectable) return { answer: page(err.options.status ?? 400, err.message) };
    refusal = err;
  }
  const back = (error: OAuthErrorCode, description: string) => ({
    answer: redirectError(request, { issuer: deps.issuer, error, description }),
  });
  if (fields.get("response_type") !== "code") {
    return back("unsupported_response_type", "response_type must be code");
  }
  if (fields.get("code_challenge_method") !== "S256") {
    return back("invalid_request", "code_challenge_method must be S256 (PKCE is required)");
  }
  if (request.state === "") return back("invalid_request", "state is required");
  if (refusal || client === null) {
    return back(refusal?.error ?? "invalid_request", refusal?.message ?? "request refused");
  }
  return { request, client };
}

async function renderConsent(
  checked: { request: AuthorizationRequest; client: OAuthClient },
  o: { fields: Fields; nonce: string; deps: AuthorizeDeps; status: number; problem?: string },
): Promise<Response> {
  const values = requestValues(o.fields);
  const redirectOrigin = new URL(checked.request.redirect_uri).origin;
  const html = consentPage({
    request: Object.fromEntries(REQUEST_FIELDS.map((n, i) => [n, values[i]])) as Record<
      (typeof REQUEST_FIELDS)[number],
      string
    >,
    clientName: checked.client.client_name,
    clientId: checked.client.client_id,
    redirectOrigin,
    asks: o.deps.describeScope(checked.request.scope),
    csrf: await o.deps.csrf.sign(o.nonce, values),
    problem: o.problem,
  });
  return new Response(html, { status: o.status, headers: pageHeaders([redirectOrigin]) });
}

function page(status: number, message: string): Response {
  return new Response(errorPage(message), { status, headers: pageHeaders() });
}

function redirectError(
  request: AuthorizationRequest,
  o: { issuer: string; error: OAuthErrorCode; description: string },
): Response {
  const to = new URL(request.redirect_uri);
  to.searchParams.set("error", o.error);
  to.searchParams.set("error_description", o.description);
  if (request.state !== "") to.searchParams.set("state", request.state);
  to.searchParams.set("iss", o.issuer);
  return redirect(to);
}

function redirect(to: URL): Response {
  return new Response(null, {
    status: 302,
    headers: { Location: to.href, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" },
  });
}
