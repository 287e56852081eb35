/**
 * @module The tokens page (admin tier): every token without its secret, a form to create one (its
 * secret shown once, in the page), and revoking.
 */
import type { TokenRecord } from "../../core/ports/token_store.ts";
import { type Brain, TIERS } from "../../core/types.ts";
import type { ConsoleActor } from "./console_actor.ts";
import { markup, type SafeHtml } from "./html.ts";
import { when } from "./layout.ts";

/** The tokens page. */
export function tokensBody(
  actor: ConsoleActor,
  o: { tokens: TokenRecord[]; brains: Brain[] },
): SafeHtml {
  const slug = (id: string) => o.brains.find((b) => b.id === id)?.slug ?? id;
  const tiers = TIERS.filter((t) => actor.can(t));
  return markup`
    <section aria-labelledby="create-h">
      <h2 id="create-h">Create a token</h2>
      <form class="token-create" data-action="token-create">
        <label for="client">Client</label>
        <input id="client" name="client" required maxlength="128">
        <label for="tier">Tier</label>
        <select id="tier" name="tier">${
    tiers.map((t) => markup`<option value="${t}">${t}</option>`)
  }</select>
        <label for="brains">Brains (slugs, comma-separated; empty: ${
    actor.grant.brains === "*" ? "every brain" : "this token's own"
  })</label>
        <input id="brains" name="brains">
        <p class="form-status" role="status" aria-live="polite"></p>
        <button type="submit">Create</button>
      </form>
      <div id="new-token" class="notice info" tabindex="-1" hidden>
        <p><strong>The new token, shown once:</strong></p>
        <p><code></code></p>
        <p class="muted"></p>
      </div>
    </section>
    <section aria-labelledby="list-h">
      <h2 id="list-h">Tokens</h2>
      <p class="form-status" id="page-status" role="status" aria-live="polite"></p>
      <table>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Client</th>
            <th scope="col">Tier</th>
            <th scope="col">Brains</th>
            <th scope="col">Starts</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>${
    o.tokens.map((t) =>
      markup`
            <tr>
              <td>${t.id}</td>
              <td>${t.client_id}</td>
              <td>${t.operator ? `${t.tier}+operator` : t.tier}</td>
              <td>${t.brains === "*" ? "all" : t.brains.map(slug).join(", ")}</td>
              <td><code>egt_${t.prefix}…</code></td>
              <td>${when(t.created_at)}</td>
              <td>${when(t.last_used_at)}</td>
              <td>${
        t.revoked_at
          ? `revoked ${when(t.revoked_at)}`
          : markup`live <button type="button" data-action="token-revoke" data-id="${t.id}">Revoke</button>`
      }</td>
            </tr>
          `
    )
  }</tbody>
      </table>
    </section>
  `;
}
