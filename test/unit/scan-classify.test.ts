import assert from "node:assert/strict";
import { dayKey, notCountedReason, placeFromGeoHeaders, windowDays } from "../../functions/src/scans/classify";

describe("scan classification", () => {
  it("counts browsers and camera apps, not HEAD, bots, previews or prefetches", () => {
    const phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    assert.equal(notCountedReason("GET", { "user-agent": phone }), null);
    assert.equal(notCountedReason("GET", {}), null);
    assert.equal(notCountedReason("HEAD", { "user-agent": phone }), "head-request");
    for (const ua of [
      "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
      "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
      "Twitterbot/1.0",
      "WhatsApp/2.23.20.0",
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      "TelegramBot (like TwitterBot)",
      "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
      "LinkedInBot/1.0",
    ]) {
      assert.equal(notCountedReason("GET", { "user-agent": ua }), "bot", ua);
    }
    assert.equal(notCountedReason("GET", { "user-agent": phone, "sec-purpose": "prefetch;prerender" }), "prefetch");
  });

  it("reads city and state from trusted platform geo headers, else nothing", () => {
    assert.deepEqual(placeFromGeoHeaders({ "x-appengine-city": "austin", "x-appengine-region": "tx" }), { city: "austin", state: "tx" });
    assert.deepEqual(placeFromGeoHeaders({ "x-client-geo-city": "S%C3%A3o%20Paulo", "x-client-geo-region": "BR-SP" }), { city: "São Paulo", state: "BR-SP" });
    assert.deepEqual(placeFromGeoHeaders({ "cf-ipcity": "Portland", "cf-region-code": "OR" }), { city: "Portland", state: "OR" });
    assert.deepEqual(placeFromGeoHeaders({ "x-appengine-city": "?", "cf-ipcity": "Denver" }), { city: "Denver", state: "unknown" });
    assert.equal(placeFromGeoHeaders({}), undefined);
    assert.equal(placeFromGeoHeaders({ "x-forwarded-for": "203.0.113.9" }), undefined);
    assert.equal(placeFromGeoHeaders({ "x-client-geo-city": "%E0%A4%A" }), undefined, "malformed percent-encoding is no value");
  });

  it("windows are whole UTC days ending today, oldest first", () => {
    const now = new Date("2026-03-01T00:30:00Z");
    assert.deepEqual(windowDays(3, now), ["2026-02-27", "2026-02-28", "2026-03-01"]);
    assert.equal(windowDays(365, now).length, 365);
    assert.equal(dayKey(new Date("2026-12-31T23:59:59Z")), "2026-12-31");
  });
});
