import assert from "node:assert/strict";
import { ageOrTime } from "../../src/core/age_or_time.ts";

const now = new Date("2030-06-01T12:00:00Z");

Deno.test("ageOrTime: an age counts back in the caller's units; m is what the caller says", () => {
  const months = { d: 86_400_000, m: 30 * 86_400_000 };
  const minutes = { d: 86_400_000, m: 60_000 };
  assert.equal(ageOrTime("7d", { now, units: months }), "2030-05-25T12:00:00.000Z");
  assert.equal(ageOrTime("3m", { now, units: months }), "2030-03-03T12:00:00.000Z");
  assert.equal(ageOrTime("3m", { now, units: minutes }), "2030-06-01T11:57:00.000Z");
  assert.equal(ageOrTime("2w", { now, units: minutes }), null, "a unit not in the table");
});

Deno.test("ageOrTime: a time or date starting YYYY-MM-DD; anything else is null", () => {
  const units = { d: 86_400_000 };
  assert.equal(ageOrTime("2024-05-01", { now, units }), "2024-05-01T00:00:00.000Z");
  assert.equal(
    ageOrTime("2024-05-01T10:00:00+02:00", { now, units }),
    "2024-05-01T08:00:00.000Z",
  );
  assert.equal(ageOrTime("2024-13-45", { now, units }), null);
  assert.equal(ageOrTime("yesterday", { now, units }), null);
  assert.equal(ageOrTime("May 1, 2024", { now, units }), null, "only ISO forms");
});
