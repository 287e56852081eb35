/** @module ageOrTime: one set of age units (m minutes, h, d, w) and ISO times or dates. */
import assert from "node:assert/strict";
import { ageOrTime } from "../../src/core/age_or_time.ts";

const now = new Date("2030-06-01T12:00:00Z");

Deno.test("ageOrTime: an age counts back from now; m is minutes, w weeks", () => {
  assert.equal(ageOrTime("30m", { now }), "2030-06-01T11:30:00.000Z");
  assert.equal(ageOrTime("12h", { now }), "2030-06-01T00:00:00.000Z");
  assert.equal(ageOrTime("7d", { now }), "2030-05-25T12:00:00.000Z");
  assert.equal(ageOrTime("2w", { now }), "2030-05-18T12:00:00.000Z");
  assert.equal(ageOrTime("3y", { now }), null, "a unit engram does not have");
});

Deno.test("ageOrTime: a time or date starting YYYY-MM-DD; anything else is null", () => {
  assert.equal(ageOrTime("2024-05-01", { now }), "2024-05-01T00:00:00.000Z");
  assert.equal(ageOrTime("2024-05-01T10:00:00+02:00", { now }), "2024-05-01T08:00:00.000Z");
  assert.equal(ageOrTime("2024-13-45", { now }), null);
  assert.equal(ageOrTime("yesterday", { now }), null);
  assert.equal(ageOrTime("May 1, 2024", { now }), null, "only ISO forms");
});
