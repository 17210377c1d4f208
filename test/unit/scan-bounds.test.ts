// Size bounds of what a scan writes, proved with 100,000 random inputs (10,000 at the default TEST_SCALE): the breakdown names come from
// closed sets whatever a client sends, and random User-Agents from one address are one visitor.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { agentOf, BROWSER_NAMES, deviceOf, DEVICE_TYPES, OS_NAMES, OTHER } from "../../functions/src/scans/device";
import { visitorKey } from "../../functions/src/scans/record";
import { BROWSERS, randomUserAgent, realCrowd, unrecognisedUserAgent } from "../fixtures/user-agents";
import { prng } from "../helpers/fuzz";
import { scaled } from "../helpers/scale";
import { placeOfAddress } from "../../functions/src/scans/geo";
import { rollupChanges, SCAN_EVENT_LANES, type ScanClass, type ScanFacts } from "../../functions/src/store/scans";
import { MAX_DOMAINS } from "../../functions/src/domains/service";
import { addInto, foldCounts, INSTANCE_ID, MAP_CAPS, OTHER_KEY, SHARD_WRITE_INTERVAL_MS, shardChange, type Counts } from "../../functions/src/store/rollups";

// 10,000 still fills the code (1,000 of 5,000) and UTM (100 of 3,000) caps and passes 1,000 places.
const RUNS = scaled(100_000, 10_000);
const isRecognisedBrowserName = (name: string) => BROWSER_NAMES.has(name) && name !== "Generic";

describe("scan size bounds", () => {
  it(`device, OS and browser names of ${RUNS.toLocaleString("en")} random User-Agents stay in their closed sets`, function () {
    this.timeout(120_000);
    const rand = prng(35);
    const seen = { device: new Set<string>(), os: new Set<string>(), browser: new Set<string>() };
    for (let i = 0; i < RUNS; i++) {
      const d = deviceOf(randomUserAgent(rand));
      seen.device.add(d.device);
      seen.os.add(d.os);
      seen.browser.add(d.browser);
    }
    const within = (names: Set<string>, known: ReadonlySet<string>) => [...names].filter((n) => !known.has(n) && n !== OTHER && n !== "unknown");
    assert.deepEqual(within(seen.device, DEVICE_TYPES), []);
    assert.deepEqual(within(seen.os, OS_NAMES), []);
    assert.deepEqual(within(seen.browser, BROWSER_NAMES), []);
    // The bound each map is documented with (docs/data-model.md): the closed set plus Other and unknown.
    assert.ok(DEVICE_TYPES.size + 1 <= 5 && OS_NAMES.size + 2 <= 20 && BROWSER_NAMES.size + 2 <= 80, `sets: ${DEVICE_TYPES.size}, ${OS_NAMES.size}, ${BROWSER_NAMES.size}`);
    assert.ok(seen.browser.has(OTHER), "names outside the set are counted as Other");
  });

  it(`${RUNS.toLocaleString("en")} random User-Agents from one address, browser-shaped ones included, are a handful of visitors; another address is another`, function () {
    this.timeout(120_000);
    const key = (address: string, ua: string) => visitorKey(address, ua, agentOf(ua).recognised);
    for (const [seed, generate] of [[36, unrecognisedUserAgent], [38, randomUserAgent]] as const) {
      const rand = prng(seed);
      const fromOne = new Set<string>();
      for (let i = 0; i < RUNS; i++) fromOne.add(key("198.51.100.7", generate(rand)));
      // One visitor for all that do not read as a real browser; the parser's loose patterns (an "opr" or
      // "ucbrowser" inside a random word) make a rare one look like a versioned browser, one more each.
      assert.ok(fromOne.size <= 10, `${fromOne.size} visitors from ${generate.name}`);
    }
    const ua = unrecognisedUserAgent(prng(1));
    assert.notEqual(key("198.51.100.7", ua), key("198.51.100.8", ua), "the address still tells people apart");
    // An IPv6 host may use every address of its /64: the /64 is the client, as for the rate limits.
    const browser = realCrowd(1)[0];
    assert.equal(key("2001:db8:1:2::1", browser), key("2001:db8:1:2:ffff:ffff:ffff:fffe", browser), "one /64, one client");
    assert.notEqual(key("2001:db8:1:2::1", browser), key("2001:db8:1:3::1", browser), "another /64 is another client");
  });

  it("real, varied browsers behind one address stay distinct people; a made-up product in a browser's shape does not", () => {
    const crowd = realCrowd(200);
    const keys = new Set(crowd.map((ua) => visitorKey("203.0.113.10", ua, agentOf(ua).recognised)));
    assert.equal(keys.size, 200);
    for (const b of BROWSERS) {
      assert.notEqual(deviceOf(b.ua).browser, OTHER, b.ua);
      assert.equal(agentOf(b.ua).recognised, true, b.ua);
    }
    // Parsed as a Safari on Windows and an Android Browser, neither with a version: not a real browser.
    for (const shaped of [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) qwertyzx/123.0.4567.8 Safari/537.36",
      "Mozilla/5.0 (Linux; Android 13; XJXPNHGL-705) AppleWebKit/537.36 (KHTML, like Gecko) nulonnqsvsyl/160.0.3685.149 Safari/537.36",
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)",
    ]) {
      assert.equal(isRecognisedBrowserName(deviceOf(shaped).browser), true, shaped);
      assert.equal(agentOf(shaped).recognised, false, shaped);
    }
  });

  it(`${RUNS.toLocaleString("en")} random addresses, User-Agents, campaigns and codes leave every rollup shard and folded day within its caps and under 256 KB`, async function () {
    this.timeout(300_000);
    const rand = prng(37);
    const pick = <T,>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
    const randomAddress = () =>
      rand() < 0.7 ? Array.from({ length: 4 }, () => Math.floor(rand() * 256)).join(".") : Array.from({ length: 8 }, () => Math.floor(rand() * 65536).toString(16)).join(":");
    const shards = new Map<string, Counts>();
    const baseOf = new Map<string, string>();
    const classes: ScanClass[] = [{ kind: "human", unique: true, eventId: "x" }, { kind: "human", unique: false, eventId: "y" }, { kind: "repeat" }, { kind: "bot", reason: "crawler" }];
    let now = Date.UTC(2026, 10, 25, 12);
    const places = new Set<string>();
    for (let i = 0; i < RUNS; i++) {
      now += Math.floor(rand() * 3); // about 1,000 scans a second: the instance moves on to further shards
      const place = await placeOfAddress(randomAddress());
      places.add(`${place.country}|${place.state}|${place.city}`);
      const facts: ScanFacts = {
        merchantId: "m1",
        codeId: `code-${Math.floor(rand() * 5000)}`,
        uniqueQRCodeID: "aB3dE5gH7jK9",
        campaign: rand() < 0.5 ? null : `campaign ${Math.floor(rand() * 2000)}`,
        at: new Date(now),
        day: "2026-11-25",
        hour: Math.floor(rand() * 24),
        timeZone: "UTC",
        place,
        device: deviceOf(randomUserAgent(rand)),
        source: "redirect",
        retentionDays: 400,
        // Campaign rules (20 positions, 4 variants) and merchant-written UTM pairs (an open set).
        ...(rand() < 0.5 ? { rule: rand() < 0.1 ? { index: null } : { index: Math.floor(rand() * 20), ...(rand() < 0.5 ? { variant: Math.floor(rand() * 4) } : {}) } } : {}),
        // Hosts: the service's own or one of 30 (more than a workspace holds at once: the cap is tested too).
        ...(rand() < 0.5 ? { host: `scan${Math.floor(rand() * 30)}.brand.example` } : {}),
        ...(rand() < 0.5 ? { utm: { source: `src ${Math.floor(rand() * 3000)}|${"x".repeat(Math.floor(rand() * 90))}`, medium: `medium ${Math.floor(rand() * 50)}` } } : {}),
      };
      for (const { target, counts } of rollupChanges(facts, pick(classes))) {
        // Every change goes through the shard choice and capping the batch writer uses.
        const change = shardChange(target, counts, now);
        const key = `${target.kind}/${change.id}`;
        shards.set(key, addInto(shards.get(key) ?? {}, change.counts));
        baseOf.set(key, `${target.kind}/${target.baseId}`);
        assert.ok(change.id.startsWith(`${INSTANCE_ID}~`), "a shard's id leads with its instance");
      }
    }
    assert.ok(places.size > 1000, `${places.size} distinct places: the caps were tested`);
    const withinCaps = (doc: Counts, where: string) => {
      for (const [field, cap] of Object.entries(MAP_CAPS)) {
        const keys = Object.keys((doc[field] as Counts | undefined) ?? {}).filter((k) => k !== OTHER_KEY);
        assert.ok(keys.length <= cap, `${where}: ${field} holds ${keys.length} keys (cap ${cap})`);
      }
      const bytes = Buffer.byteLength(JSON.stringify(doc));
      assert.ok(bytes < 256 * 1024, `${where}: ${bytes} bytes`);
      return bytes;
    };
    let largest = 0;
    for (const [key, doc] of shards) largest = Math.max(largest, withinCaps(doc, key));
    // Fold each rollup's shards as the maintenance job does: the folded day keeps the caps too.
    const byRollup = new Map<string, Counts[]>();
    for (const [key, doc] of shards) {
      const base = baseOf.get(key)!;
      byRollup.set(base, [...(byRollup.get(base) ?? []), doc]);
    }
    const workspaceDay = foldCounts(byRollup.get("scanDays/2026-11-25")!) as Counts;
    largest = Math.max(largest, withinCaps(workspaceDay, "folded workspace day"));
    for (const [base, docs] of byRollup) largest = Math.max(largest, withinCaps(foldCounts(docs) as Counts, base));
    assert.ok(Object.keys(workspaceDay.c as Counts).length === MAP_CAPS.c + 1, "the code map was capped, the rest under Other");
    assert.ok(Object.keys(workspaceDay.ut as Counts).length === MAP_CAPS.ut + 1, "the UTM map was capped, the rest under Other");
    assert.equal(workspaceDay.ru, undefined, "rule positions are kept per code only");
    assert.equal(Object.keys(workspaceDay.ho as Counts).length, MAP_CAPS.ho + 1, "the host map was capped at a workspace's 20 domains and its own host, the rest under Other");
    assert.equal(MAP_CAPS.ho, MAX_DOMAINS + 1);
    // Nothing was lost to the caps: the folded workspace day counts every person's scan.
    const people = [...shards].filter(([k]) => k.startsWith("codeDays/")).reduce((a, [, d]) => a + ((d.n as number) ?? 0), 0);
    assert.equal(workspaceDay.n, people);
    assert.equal(Object.values(workspaceDay.c as Record<string, Counts>).reduce((a, c) => a + (c.n as number), 0), people);
    assert.equal(Object.values(workspaceDay.ho as Record<string, Counts>).reduce((a, c) => a + (c.n as number), 0), people, "every /qr/ person's scan has its host");
    console.log(`      ${shards.size} shards; largest document ${Math.round(largest / 1024)} KB`);
  });

  it("an instance writes each of its shards at most once a second at up to 128 commits a second", () => {
    // One change per rollup per commit (a group commit carries every scan waiting), so the rate that
    // matters is the instance's commit rate: 100 a second here, far above what one instance reaches.
    const target = { merchantId: "m-pace", kind: "codeDays" as const, baseId: "c~2026-11-25", fields: {} };
    const lastWrite = new Map<string, number>();
    let now = 1_000_000;
    for (let i = 0; i < 1_000; i++) {
      now += 10;
      const { id } = shardChange(target, { n: 1 }, now);
      const last = lastWrite.get(id);
      assert.ok(last === undefined || now - last >= SHARD_WRITE_INTERVAL_MS, `${id} written again after ${now - (last ?? 0)} ms`);
      lastWrite.set(id, now);
    }
    assert.ok(lastWrite.size <= 101, `${lastWrite.size} shards for 100 commits a second`);
    // A quiet rollup keeps using its first shard.
    const quiet = { ...target, baseId: "q~2026-11-25" };
    const ids = new Set(Array.from({ length: 20 }, (_, i) => shardChange(quiet, { n: 1 }, 5_000_000 + i * 1_500).id));
    assert.equal(ids.size, 1);
  });
});

describe("scan events' index", () => {
  type Index = { collectionGroup: string; queryScope: string; fields: Array<{ fieldPath: string; order?: string }> };
  const file = JSON.parse(readFileSync(path.resolve(__dirname, "..", "..", "firestore.indexes.json"), "utf8")) as {
    indexes: Index[];
    fieldOverrides: Array<{ collectionGroup: string; fieldPath: string; indexes: unknown[] }>;
  };
  const scans = file.indexes.filter((i) => i.collectionGroup === "scans");

  it("is split into lanes, so a hot code's newest entries land in 16 ranges; no index orders a code's events by time alone", () => {
    assert.deepEqual(
      scans.map((i) => i.fields.map((f) => `${f.fieldPath} ${f.order}`)),
      [["codeId ASCENDING", "lane ASCENDING", "at DESCENDING"]],
    );
    assert.ok(SCAN_EVENT_LANES >= 16 && SCAN_EVENT_LANES <= 30, "Firestore's `in` takes at most 30 values");
    for (const field of ["at", "codeId", "lane"]) {
      const override = file.fieldOverrides.find((o) => o.collectionGroup === "scans" && o.fieldPath === field);
      assert.deepEqual(override?.indexes, [], `${field} keeps no single-field index`);
    }
  });
});

describe("rollup indexes", () => {
  const file = JSON.parse(readFileSync(path.resolve(__dirname, "..", "..", "firestore.indexes.json"), "utf8")) as {
    fieldOverrides: Array<{ collectionGroup: string; fieldPath: string; indexes: unknown[] }>;
  };
  /** Fields the queries need a single-field index of: the fold's scan (`shard`); `codeId` is left as Firestore makes it. */
  const QUERIED = new Set(["shard", "codeId"]);

  it("exempt every field the rollups are written with, maps and counts alike, from single-field indexes", () => {
    const written = new Map<string, Set<string>>([["codeDays", new Set()], ["scanDays", new Set()]]);
    const facts = (extra: Partial<ScanFacts>): ScanFacts => ({
      merchantId: "m1", codeId: "c1", uniqueQRCodeID: "aB3dE5gH7jK9", campaign: "spring", at: new Date(Date.UTC(2026, 10, 25, 12)), day: "2026-11-25", hour: 12, timeZone: "UTC",
      place: { country: "US", state: "Oregon", city: "Portland" }, device: { device: "mobile", os: "iOS", browser: "Safari" }, source: "redirect", retentionDays: 400, ...extra,
    });
    // Every kind of scan, with every optional breakdown: what the consumer and the synchronous path write.
    const scans: Array<[ScanFacts, ScanClass]> = [
      [facts({ rule: { index: 2, variant: 1 }, utm: { source: "news", medium: "email" }, linkType: "gs1:pip" }), { kind: "human", unique: true, eventId: "x" }],
      [facts({}), { kind: "human", unique: false, eventId: "y" }],
      [facts({}), { kind: "repeat" }],
      [facts({}), { kind: "bot", reason: "crawler" }],
      [facts({}), { kind: "ended", reason: "ended" }],
    ];
    for (const [f, cls] of scans) {
      for (const { target, counts } of rollupChanges(f, cls)) {
        for (const field of [...Object.keys(target.fields), ...Object.keys(counts)]) written.get(target.kind)!.add(field);
      }
    }
    for (const field of ["e", "lt", "ru", "ut", "day"]) assert.ok(written.get("codeDays")!.has(field), `the sample writes ${field}`);
    for (const [kind, fields] of written) {
      for (const field of fields) {
        if (QUERIED.has(field)) continue;
        const override = file.fieldOverrides.find((o) => o.collectionGroup === kind && o.fieldPath === field);
        assert.ok(override && override.indexes.length === 0, `${kind}.${field} is written but not exempt from indexing in firestore.indexes.json`);
      }
    }
    // The fold's scan keeps its index on `shard`, in both scopes.
    for (const kind of written.keys()) assert.equal(file.fieldOverrides.find((o) => o.collectionGroup === kind && o.fieldPath === "shard")?.indexes.length, 2);
    // The code list's ledger (store/scanLedger.ts): its keys are days.
    assert.deepEqual(file.fieldOverrides.find((o) => o.collectionGroup === "codes" && o.fieldPath === "scansByDay")?.indexes, []);
  });
});
