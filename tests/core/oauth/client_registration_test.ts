import assert from "node:assert/strict";
import { OAuthError } from "../../../src/core/oauth/authorization_types.ts";
import {
  metadataDocumentUrlProblem,
  parseMetadataDocument,
  parseRegistration,
  redirectUriProblem,
  redirectUriRegistered,
} from "../../../src/core/oauth/client_registration.ts";

function refused(fn: () => unknown, code: string, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof OAuthError, String(err));
    assert.equal(err.error, code, err.message);
    assert.match(err.message, message);
    assert.equal(err.options.redirectable ?? false, false, "a registration error never redirects");
    return true;
  });
}

Deno.test("parseRegistration: RFC 7591 defaults (client_secret_basic, authorization_code), extra fields ignored", () => {
  assert.deepEqual(
    parseRegistration({
      redirect_uris: ["https://app.example/cb", "https://app.example/cb"],
      logo_uri: "https://app.example/logo.png",
      scope: "engram:write",
    }),
    {
      redirect_uris: ["https://app.example/cb"],
      client_name: null,
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["authorization_code"],
    },
  );
});

Deno.test("parseRegistration keeps client_name as given, control characters and markup included", () => {
  const name = "Claude \u001b[2J<script>alert(1)</script> \u202e";
  const parsed = parseRegistration({
    redirect_uris: ["http://127.0.0.1:4000/cb", "http://[::1]/cb", "http://localhost:9/cb"],
    client_name: name,
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  });
  assert.equal(parsed.client_name, name);
  assert.equal(parsed.token_endpoint_auth_method, "none");
  assert.deepEqual(parsed.grant_types, ["authorization_code", "refresh_token"]);
});

const BAD_REDIRECTS: [string, unknown, RegExp][] = [
  ["no redirect_uris", {}, /redirect_uris/],
  ["an empty list", { redirect_uris: [] }, /redirect_uris/],
  ["not a list", { redirect_uris: "https://a.example/cb" }, /redirect_uris/],
  ["plain http on a public host", { redirect_uris: ["http://app.example/cb"] }, /must be https/],
  ["a custom scheme", { redirect_uris: ["myapp://cb"] }, /must be https/],
  ["a fragment", { redirect_uris: ["https://a.example/cb#x"] }, /fragment/],
  ["credentials", { redirect_uris: ["https://u:p@a.example/cb"] }, /credentials/],
  ["a relative URI", { redirect_uris: ["/cb"] }, /not an absolute URL/],
  ["http on 127.0.0.1.evil.example", {
    redirect_uris: ["http://127.0.0.1.evil.example/cb"],
  }, /must be https/],
];
for (const [what, metadata, message] of BAD_REDIRECTS) {
  Deno.test(`parseRegistration refuses ${what} with invalid_redirect_uri`, () => {
    refused(() => parseRegistration(metadata), "invalid_redirect_uri", message);
  });
}

const BAD_METADATA: [string, Record<string, unknown>, RegExp][] = [
  ["private_key_jwt", { token_endpoint_auth_method: "private_key_jwt" }, /not supported/],
  ["the implicit grant", { grant_types: ["authorization_code", "implicit"] }, /grant_types/],
  ["refresh_token alone", { grant_types: ["refresh_token"] }, /authorization_code/],
  ["client_credentials", { grant_types: ["client_credentials"] }, /grant_types/],
  ["response type token", { response_types: ["token"] }, /only "code"/],
  ["a client_name of 201 characters", { client_name: "n".repeat(201) }, /client_name/],
  ["a client_name that is no string", { client_name: 7 }, /client_name/],
];
for (const [what, extra, message] of BAD_METADATA) {
  Deno.test(`parseRegistration refuses ${what} with invalid_client_metadata`, () => {
    refused(
      () => parseRegistration({ redirect_uris: ["https://a.example/cb"], ...extra }),
      "invalid_client_metadata",
      message,
    );
  });
}

Deno.test("parseRegistration refuses a body that is no object", () => {
  refused(() => parseRegistration("x"), "invalid_client_metadata", /body/);
  refused(() => parseRegistration(null), "invalid_client_metadata", /body/);
});

const URL_ID = "https://app.example/oauth/client.json";

Deno.test("parseMetadataDocument: client_id must be the URL; auth defaults to none", () => {
  assert.deepEqual(
    parseMetadataDocument(URL_ID, {
      client_id: URL_ID,
      client_name: "App",
      redirect_uris: ["https://app.example/cb"],
      grant_types: ["authorization_code", "refresh_token"],
    }),
    {
      redirect_uris: ["https://app.example/cb"],
      client_name: "App",
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    },
  );
});

const BAD_DOCUMENTS: [string, unknown, RegExp][] = [
  ["another client_id", {
    client_id: "https://evil.example/c.json",
    redirect_uris: ["https://a.example/cb"],
  }, /client_id "https:\/\/evil\.example\/c\.json" is not the document's URL/],
  ["no client_id", { redirect_uris: ["https://a.example/cb"] }, /client_id undefined/],
  ["a client secret", {
    client_id: URL_ID,
    client_secret: "s",
    redirect_uris: ["https://a.example/cb"],
  }, /may not carry a client secret/],
  ["a shared-secret method", {
    client_id: URL_ID,
    token_endpoint_auth_method: "client_secret_basic",
    redirect_uris: ["https://a.example/cb"],
  }, /not supported for a metadata document/],
  ["an http redirect URI", {
    client_id: URL_ID,
    redirect_uris: ["http://a.example/cb"],
  }, /must be https/],
  ["no redirect URIs", { client_id: URL_ID }, /redirect_uris/],
  ["an array", [], /document/],
];
for (const [what, doc, message] of BAD_DOCUMENTS) {
  Deno.test(`parseMetadataDocument refuses ${what} with invalid_client, naming the document`, () => {
    refused(() => parseMetadataDocument(URL_ID, doc), "invalid_client", message);
    refused(() => parseMetadataDocument(URL_ID, doc), "invalid_client", /client\.json/);
  });
}

Deno.test("metadataDocumentUrlProblem: an https URL with a path, no fragment, credentials or dot segments", () => {
  assert.equal(metadataDocumentUrlProblem(URL_ID), null);
  assert.equal(metadataDocumentUrlProblem("https://app.example/c?v=1"), null);
  assert.equal(metadataDocumentUrlProblem("http://app.example/c.json"), "is not an https URL");
  assert.equal(metadataDocumentUrlProblem("https://app.example/"), "has no path");
  assert.equal(metadataDocumentUrlProblem("https://app.example"), "has no path");
  assert.equal(metadataDocumentUrlProblem("https://app.example/c#x"), "has a fragment");
  assert.equal(metadataDocumentUrlProblem("https://u@app.example/c"), "carries credentials");
  assert.equal(
    metadataDocumentUrlProblem("https://app.example/a/../c"),
    "has . or .. path segments",
  );
  assert.equal(metadataDocumentUrlProblem("https://app.example/./c"), "has . or .. path segments");
  assert.equal(metadataDocumentUrlProblem("https://"), "is not a URL");
});

Deno.test("redirectUriProblem accepts https anywhere and http on loopback only", () => {
  for (const ok of ["https://a.example/cb", "http://127.0.0.1/cb", "http://[::1]:8/cb"]) {
    assert.equal(redirectUriProblem(ok), null, ok);
  }
  assert.match(redirectUriProblem("http://10.0.0.1/cb")!, /must be https/);
});

Deno.test("redirectUriRegistered: exact, or a loopback IP redirect on another port (RFC 8252)", () => {
  const registered = ["https://a.example/cb", "http://127.0.0.1/callback", "http://localhost:9/cb"];
  assert.ok(redirectUriRegistered(registered, "https://a.example/cb"));
  assert.ok(redirectUriRegistered(registered, "http://127.0.0.1:51234/callback"));
  assert.ok(!redirectUriRegistered(registered, "http://127.0.0.1:51234/other"));
  assert.ok(!redirectUriRegistered(registered, "http://localhost:10/cb"), "localhost: exact only");
  assert.ok(!redirectUriRegistered(registered, "https://a.example:8443/cb"));
  assert.ok(!redirectUriRegistered(registered, "https://a.example/cb/"));
  assert.ok(!redirectUriRegistered(registered, "https://a.example/cb?x=1"));
  assert.ok(!redirectUriRegistered(registered, "not a url"));
});
