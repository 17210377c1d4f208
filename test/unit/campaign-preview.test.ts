// The preview's local time (campaigns/preview.ts instantOf): a wall-clock date and time in a zone read as
// the instant the redirect would see, through daylight saving time changes. Expected instants by hand.
import assert from "node:assert/strict";
import { instantOf, PreviewScanSchema } from "../../functions/src/campaigns/preview";

describe("campaign preview: a sample's local time", () => {
  it("reads a wall-clock time in the zone as its instant", () => {
    const cases: Array<[string, string, string]> = [
      ["2026-12-11T18:30", "America/New_York", "2026-12-11T23:30:00.000Z"],
      ["2026-07-01T09:00", "America/New_York", "2026-07-01T13:00:00.000Z"],
      ["2026-12-09T08:30", "Europe/Paris", "2026-12-09T07:30:00.000Z"],
      ["2026-12-31T23:59", "UTC", "2026-12-31T23:59:00.000Z"],
      ["2027-01-01T00:15", "Asia/Kolkata", "2026-12-31T18:45:00.000Z"],
      ["2026-06-15T12:00", "Australia/Lord_Howe", "2026-06-15T01:30:00.000Z"],
      // Spring forward in New York (2026-03-08): 02:30 does not exist; the instant after the gap.
      ["2026-03-08T01:59", "America/New_York", "2026-03-08T06:59:00.000Z"],
      ["2026-03-08T03:00", "America/New_York", "2026-03-08T07:00:00.000Z"],
    ];
    for (const [local, zone, expected] of cases) assert.equal(instantOf(local, zone).toISOString(), expected, `${local} in ${zone}`);
    const gap = instantOf("2026-03-08T02:30", "America/New_York").toISOString();
    assert.ok(["2026-03-08T06:30:00.000Z", "2026-03-08T07:30:00.000Z"].includes(gap), gap);
  });

  it("describes a sample scan with defaults, refusing unknown names with the list", () => {
    assert.deepEqual(PreviewScanSchema.parse({ localTime: "2026-12-09T10:00" }), { device: "mobile", os: "unknown", browser: "unknown", localTime: "2026-12-09T10:00", visitor: "human", sampleVisitor: 1, humanScans: 0 });
    assert.equal(PreviewScanSchema.parse({ localTime: "2026-12-09T10:00", country: "ca" }).country, "CA");
    const bad = PreviewScanSchema.safeParse({ localTime: "2026-12-09 10:00", os: "Windoze", extra: 1 });
    assert.equal(bad.success, false);
    const text = bad.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n");
    assert.match(text, /os: unknown OS "Windoze"; one of: .*Windows/);
    assert.match(text, /localTime: localTime is a local date and time such as 2026-12-05T18:30/);
  });
});
