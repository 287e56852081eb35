/**
 * @module Scopes as engram reads them: one per tier (`TIER_SCOPES`). A request's scope names at
 * most the tier it wants; other scopes (`openid`, `offline_access`, …) are ignored rather than
 * refused, since clients add them by habit.
 */
import { type Tier, tierAllows, TIERS } from "../types.ts";
import { TIER_SCOPES } from "./authorization_types.ts";

/** The highest tier a space-separated scope names, or null when it names none. */
export function requestedTier(scope: string | null | undefined): Tier | null {
  if (!scope) return null;
  const named = new Set(scope.split(/\s+/));
  let wanted: Tier | null = null;
  for (const tier of TIERS) {
    if (named.has(TIER_SCOPES[tier]) && (wanted === null || tierAllows(tier, wanted))) {
      wanted = tier;
    }
  }
  return wanted;
}

/** The scope a token of `tier` is granted. */
export function scopeOf(tier: Tier): string {
  return TIER_SCOPES[tier];
}
