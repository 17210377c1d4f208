import assert from "node:assert/strict";
import { botReason, dayKey, placeFromGeoHeaders, windowDays } from "../../functions/src/scans/classify";
import { deviceOf } from "../../functions/src/scans/device";
import { isTimeZone, localMoment, localWindow, weekdayOf } from "../../functions/src/scans/localTime";
import { BROWSERS, MACHINES } from "../fixtures/user-agents";

describe("scan classification", () => {
  it(`counts every one of ${BROWSERS.length} real browsers and in-app browsers as a person`, () => {
    assert.ok(BROWSERS.length >= 50);
    for (const { ua } of BROWSERS) assert.equal(botReason("GET", { "user-agent": ua }), null, ua);
  });

  it("names why each machine is not a person: HEAD, prefetch, no User-Agent, previews, crawlers, libraries", () => {
    for (const m of MACHINES) {
      const headers: Record<string, string> = { "user-agent": m.ua };
      for (const [k, v] of Object.entries(m.headers ?? {})) headers[k.toLowerCase()] = v;
      assert.equal(botReason(m.method ?? "GET", headers), m.reason, m.ua);
    }
    assert.equal(botReason("GET", {}), "no-user-agent");
  });

  it("reads device type, OS and browser with a maintained parser, never failing", () => {
    for (const b of BROWSERS) {
      const d = deviceOf(b.ua);
      assert.deepEqual([d.device, d.os, d.browser], [b.device, b.os, b.browser], b.ua);
    }
    assert.deepEqual(deviceOf(undefined), { device: "unknown", os: "unknown", browser: "unknown" });
    assert.deepEqual(deviceOf("\u0000\uffff".repeat(2000)).device, "unknown");
  });

  it("reads country, city and state from trusted platform geo headers, else nothing", () => {
    assert.deepEqual(placeFromGeoHeaders({ "x-appengine-city": "austin", "x-appengine-region": "tx", "x-appengine-country": "us" }), { country: "US", city: "austin", state: "tx" });
    assert.deepEqual(placeFromGeoHeaders({ "x-client-geo-city": "S%C3%A3o%20Paulo", "x-client-geo-region": "BR-SP" }), { country: "unknown", city: "São Paulo", state: "BR-SP" });
    assert.deepEqual(placeFromGeoHeaders({ "cf-ipcity": "Portland", "cf-region-code": "OR", "cf-ipcountry": "US" }), { country: "US", city: "Portland", state: "OR" });
    assert.deepEqual(placeFromGeoHeaders({ "x-appengine-city": "?", "cf-ipcity": "Denver" }), { country: "unknown", city: "Denver", state: "unknown" });
    assert.deepEqual(placeFromGeoHeaders({ "cf-ipcountry": "XX" }), undefined);
    assert.equal(placeFromGeoHeaders({}), undefined);
    assert.equal(placeFromGeoHeaders({ "x-forwarded-for": "203.0.113.9" }), undefined);
    assert.equal(placeFromGeoHeaders({ "x-client-geo-city": "%E0%A4%A" }), undefined, "malformed percent-encoding is no value");
  });

  it("UTC windows for limits are whole UTC days ending today, oldest first", () => {
    const now = new Date("2026-03-01T00:30:00Z");
    assert.deepEqual(windowDays(3, now), ["2026-02-27", "2026-02-28", "2026-03-01"]);
    assert.equal(windowDays(365, now).length, 365);
    assert.equal(dayKey(new Date("2026-12-31T23:59:59Z")), "2026-12-31");
  });

  it("puts a scan on the workspace's local day, hour and weekday, across DST and half-hour zones", () => {
    // 23:30 on Friday 2026-11-20 in Los Angeles (PST, UTC-8) is 07:30 UTC on Saturday.
    assert.deepEqual(localMoment(new Date("2026-11-21T07:30:00Z"), "America/Los_Angeles"), { day: "2026-11-20", hour: 23, weekday: 4 });
    assert.deepEqual(localMoment(new Date("2026-11-21T07:30:00Z"), "UTC"), { day: "2026-11-21", hour: 7, weekday: 5 });
    assert.deepEqual(localMoment(new Date("2026-07-04T06:59:00Z"), "America/Los_Angeles"), { day: "2026-07-03", hour: 23, weekday: 4 }, "PDT");
    assert.deepEqual(localMoment(new Date("2026-01-01T18:29:00Z"), "Asia/Kolkata"), { day: "2026-01-01", hour: 23, weekday: 3 });
    assert.deepEqual(localMoment(new Date("2026-01-01T18:30:00Z"), "Asia/Kolkata"), { day: "2026-01-02", hour: 0, weekday: 4 });
    assert.equal(weekdayOf("2026-11-23"), 0, "a Monday");
    assert.deepEqual(localWindow(2, "America/Los_Angeles", new Date("2026-11-21T07:30:00Z")), ["2026-11-19", "2026-11-20"]);
    assert.deepEqual(localWindow(3, "Pacific/Kiritimati", new Date("2026-03-01T11:00:00Z")), ["2026-02-28", "2026-03-01", "2026-03-02"]);
  });

  it("accepts IANA time zone names and refuses anything else", () => {
    for (const tz of ["UTC", "America/Los_Angeles", "Europe/Berlin", "Asia/Kathmandu", "America/Argentina/Buenos_Aires"]) assert.ok(isTimeZone(tz), tz);
    for (const tz of ["", "Mars/Olympus", "PST8PDT; DROP", "../etc", "x".repeat(65), "America/Los Angeles"]) assert.ok(!isTimeZone(tz), tz);
  });
});
