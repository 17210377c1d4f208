import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { CONSUMER_GATHER_MS, ConfigError, LOCAL_PORTS, LOCAL_PROJECT_ID, parseCodeQuota, parseEventRetentionDays, parseGatherMs, parseRetentionDays, proxySettings } from "../../functions/src/core/config";

describe("config", () => {
  it("local port defaults match firebase.json and the project id matches .firebaserc", () => {
    const root = path.resolve(__dirname, "..", "..");
    const firebase = JSON.parse(readFileSync(path.join(root, "firebase.json"), "utf8"));
    for (const [name, port] of Object.entries(LOCAL_PORTS)) {
      assert.equal(firebase.emulators[name].port, port, name);
    }
    const rc = JSON.parse(readFileSync(path.join(root, ".firebaserc"), "utf8"));
    assert.equal(rc.projects.default, LOCAL_PROJECT_ID);
    assert.ok(LOCAL_PROJECT_ID.startsWith("demo-"));
  });
});

describe("project and bucket names", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ["GCLOUD_PROJECT", "FIREBASE_CONFIG", "STORAGE_BUCKET"]) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it("come from the environment, then FIREBASE_CONFIG, then defaults", async () => {
    const { projectId, storageBucketName } = await import("../../functions/src/core/config");
    delete process.env.GCLOUD_PROJECT;
    delete process.env.STORAGE_BUCKET;
    process.env.FIREBASE_CONFIG = JSON.stringify({ projectId: "prod-app", storageBucket: "prod-app.firebasestorage.app" });
    assert.equal(projectId(), "prod-app");
    assert.equal(storageBucketName(), "prod-app.firebasestorage.app");
    process.env.FIREBASE_CONFIG = "/not/json/path";
    assert.equal(projectId(), "demo-merchant-qr");
    assert.equal(storageBucketName(), "demo-merchant-qr.appspot.com");
    process.env.GCLOUD_PROJECT = "env-project";
    process.env.STORAGE_BUCKET = "custom-bucket";
    assert.equal(projectId(), "env-project");
    assert.equal(storageBucketName(), "custom-bucket");
  });
});

describe("proxy and geo header settings", () => {
  const settings = (raw: Partial<{ trustedProxyRanges: string; geoHeaderProxyRanges: string; trustGeoHeaders: string; hostingHopRanges: string }>) =>
    proxySettings({ trustedProxyRanges: "", geoHeaderProxyRanges: "", trustGeoHeaders: "false", ...raw });

  it("trust only Google's own hops by default", () => {
    assert.deepEqual(settings({}), { trustedProxyRanges: [], hostingHopRanges: [], geoHeaderProxyRanges: [], trustGeoHeaders: false });
  });

  it("accept extra proxies outside Google Cloud customer space, the old defaults included", () => {
    assert.deepEqual(settings({ trustedProxyRanges: "35.191.0.0/16, 130.211.0.0/22, 192.0.2.0/24, 2001:db8::/32" }).trustedProxyRanges, [
      "35.191.0.0/16",
      "130.211.0.0/22",
      "192.0.2.0/24",
      "2001:db8::/32",
    ]);
  });

  it("refuse, with the reason, a range that touches customer space or does not parse", () => {
    assert.throws(() => settings({ trustedProxyRanges: "192.0.2.0/24, 34.1.208.0/20" }), (error: Error) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /^TRUSTED_PROXY_RANGES: 34\.1\.208\.0\/20 overlaps Google Cloud customer space \(34\.1\.128\.0\/17 in cloud\.json\)/);
      assert.match(error.message, /forged X-Forwarded-For/);
      return true;
    });
    // A wide range that only partly covers customer space is refused too, naming some of what it covers.
    assert.throws(() => settings({ trustedProxyRanges: "34.0.0.0/8" }), /34\.0\.0\.0\/8 overlaps Google Cloud customer space \(.+ and \d+ more in cloud\.json\)/);
    assert.throws(() => settings({ trustedProxyRanges: "2600:1900:4000::1" }), /2600:1900:4000::1 overlaps Google Cloud customer space/);
    assert.throws(() => settings({ geoHeaderProxyRanges: "35.192.0.0/14" }), /GEO_HEADER_PROXY_RANGES: 35\.192\.0\.0\/14 overlaps/);
    assert.throws(() => settings({ trustedProxyRanges: "10.0.0.0/33" }), /TRUSTED_PROXY_RANGES: "10\.0\.0\.0\/33" is not an IP address or CIDR range/);
    assert.throws(() => settings({ hostingHopRanges: "35.192.0.0/14" }), /HOSTING_HOP_RANGES: 35\.192\.0\.0\/14 overlaps/, "a measured hop cannot be in customer space");
    assert.deepEqual(settings({ hostingHopRanges: "142.250.189.0/24" }).hostingHopRanges, ["142.250.189.0/24"]);
  });

  it("refuse TRUST_GEO_HEADERS unless the proxy that sets the headers is declared", () => {
    assert.throws(() => settings({ trustGeoHeaders: "true" }), /TRUST_GEO_HEADERS=true needs GEO_HEADER_PROXY_RANGES/);
    assert.throws(() => settings({ trustGeoHeaders: "yes" }), /TRUST_GEO_HEADERS: "yes" is neither true nor false/);
    const cloudflare = "173.245.48.0/20, 2400:cb00::/32";
    assert.deepEqual(settings({ trustGeoHeaders: " TRUE ", geoHeaderProxyRanges: cloudflare }), {
      trustedProxyRanges: [],
      hostingHopRanges: [],
      geoHeaderProxyRanges: ["173.245.48.0/20", "2400:cb00::/32"],
      trustGeoHeaders: true,
    });
  });

  it("scan retentions: rollups 30 to 3,650 days; individual events 2 days up to the rollups' retention", () => {
    assert.equal(parseRetentionDays(""), 400);
    assert.throws(() => parseRetentionDays("29"), /30 to 3650/);
    assert.equal(parseEventRetentionDays("", 400), 35);
    assert.equal(parseEventRetentionDays("400", 400), 400);
    for (const bad of ["1", "401", "3.5", "forever"]) assert.throws(() => parseEventRetentionDays(bad, 400), /SCAN_EVENT_RETENTION_DAYS/, bad);
  });

  it("the workspace code quota: 1 to 10,000,000, default 1,000,000", () => {
    assert.equal(parseCodeQuota(""), 1_000_000);
    assert.equal(parseCodeQuota(" 250000 "), 250_000);
    for (const bad of ["0", "-5", "10000001", "1e3.5", "lots"]) assert.throws(() => parseCodeQuota(bad), /WORKSPACE_CODE_QUOTA/, bad);
  });

  it("the scan consumer's gather window: a second deployed, none on the emulators, 0 to 5,000 ms when set", () => {
    assert.equal(parseGatherMs("", false), 1_000);
    assert.equal(CONSUMER_GATHER_MS.deployed, 1_000);
    assert.equal(parseGatherMs("", true), 0);
    assert.equal(parseGatherMs(" 1000 ", true), 1_000, "the bench measures the deployed batching on the emulators");
    assert.equal(parseGatherMs("0", false), 0);
    for (const bad of ["-1", "5001", "0.5", "soon"]) assert.throws(() => parseGatherMs(bad, false), /CONSUMER_GATHER_MS/, bad);
  });
});
