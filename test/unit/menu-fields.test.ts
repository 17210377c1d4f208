// Draft date fields: odd strings are refused with the field's message, never a thrown RangeError (a 5xx).
import assert from "node:assert/strict";
import { isoDate } from "../../functions/src/menus/fields";

describe("draft date fields", () => {
  it("accept ISO dates and date-times, and refuse anything else without throwing", () => {
    for (const ok of ["2026-05-01", "2026-05-01T09:00:00Z", "2026-05-01T09:00:00+02:00", "2028-02-29"]) assert.equal(isoDate.safeParse(ok).success, true, ok);
    // Strings Date.parse reads its own way used to reach toISOString on an invalid date and throw.
    for (const bad of ["Tue, 01 May 2026 09:00:00 GMT", "May 1, 2026", "2026-02-30", "2027-02-29", "+275760-09-13T00:00:00Z", "", "2026-13-01", "0"]) {
      const result = isoDate.safeParse(bad);
      assert.equal(result.success, false, bad);
    }
  });
});
