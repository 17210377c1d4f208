// Scan truth: people and machines told apart, unique and repeat scanners, device, place and time in the
// workspace's time zone, privacy of what is stored, and the folding of hot days' rollup shards. Scans go
// through the local front end and Hosting as in production; each client connects from its own address.
import assert from "node:assert/strict";
import { LIMITED_REASON } from "../../functions/src/scans/clientLimit";
import { appUrl, baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { newClient, type TestClient } from "../helpers/clients";
import { BROWSERS, MACHINES, realCrowd, unrecognisedUserAgent } from "../fixtures/user-agents";
import { agentOf, BROWSER_NAMES, OS_NAMES, OTHER } from "../../functions/src/scans/device";
import { prng } from "../helpers/fuzz";
import { NEWCOMER_SLOTS, NEWCOMER_WINDOW_MS, NEWCOMERS_UNCHECKED, REPEATS_PER_MINUTE } from "../../functions/src/scans/consume";
import { writeScan } from "../../functions/src/store/scans";
import { arrivalOf } from "../../functions/src/scans/arrival";
import { consumeArrival } from "../../functions/src/scans/consume";
import { consumeInProcess, countedAnalytics, oneScanShard, pastScanFacts } from "../helpers/scans";
import { runScanMaintenance } from "../../functions/src/scans/maintenance";
import { FOLD_SHARDS_MAX } from "../../functions/src/store/rollups";
import { localMoment } from "../../functions/src/scans/localTime";
import { codeAnalytics } from "../../functions/src/scans/analytics";
import { opCounts } from "../../functions/src/store/opCounter";
import { thisWindowStart } from "../helpers/clock";
import { scaled } from "../helpers/scale";

const PHONE = BROWSERS[0].ua;

function scan(client: TestClient, id: string, ua = PHONE, method = "GET", headers: Record<string, string> = {}) {
  return client.fetch(`${baseUrl()}/qr/${id}`, { method, redirect: "manual", headers: { "User-Agent": ua, ...headers } });
}

/** X-Scan-Counted of a scan past its client's per-minute limit: answered, not recorded. */
const NOT_RECORDED = `not-recorded; reason=${LIMITED_REASON}`;

/** Runs the tasks `size` at a time, in order. */
async function inChunks<T>(tasks: Array<() => Promise<T>>, size: number): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < tasks.length; i += size) results.push(...(await Promise.all(tasks.slice(i, i + size).map((t) => t()))));
  return results;
}

async function dynamicCode(merchant: TestMerchant, path = "x") {
  return toolResult(await callTool("svc.qr.create", { title: "t", destinationUrl: `https://example.com/${path}`, dynamic: true }, merchant.apiKey));
}

const analytics = async (merchant: TestMerchant, codeId: string, days = 1) => toolResult(await callTool("svc.qr.get_analytics", { codeId, days }, merchant.apiKey));
/** Analytics once the consumer has counted `recorded` scans of the code (it counts them after their answers). */
const counted = (merchant: TestMerchant, codeId: string, recorded: number, days = 1) => countedAnalytics(() => analytics(merchant, codeId, days), recorded);

describe("scan truth: people, machines, uniques, device, place and time", function () {
  this.timeout(180_000);
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("counts a replay of HEAD probes, previews, prefetches, crawlers and libraries apart, with 0 as people", async () => {
    const code = await dynamicCode(merchant, "machines");
    const client = newClient();
    for (const m of MACHINES) {
      const res = await scan(client, code.uniqueQRCodeID, m.ua, m.method ?? "GET", m.headers ?? {});
      assert.equal(res.status, 302, m.ua);
      assert.match(res.headers.get("x-scan-counted") ?? "", /^false; reason=/, m.ua);
    }
    const a = await counted(merchant, code.codeId, MACHINES.length);
    assert.equal(a.totalScans, 0);
    assert.equal(a.uniqueScanners, 0);
    assert.equal(a.botScans.total, MACHINES.length);
    const expected: Record<string, number> = {};
    for (const m of MACHINES) expected[m.reason] = (expected[m.reason] ?? 0) + 1;
    // An empty User-Agent header may be dropped or replaced by the HTTP stack; it is a machine either way.
    const byReason = { ...a.botScans.byReason };
    assert.equal((byReason["no-user-agent"] ?? 0) + (byReason.library ?? 0), expected["no-user-agent"] + expected.library);
    for (const reason of ["head-request", "prefetch", "preview", "crawler"]) assert.equal(byReason[reason], expected[reason], reason);
  });

  it(`counts ${BROWSERS.length} real browsers in full, with device, OS and browser as sent`, async () => {
    const code = await dynamicCode(merchant, "browsers");
    const clients = BROWSERS.map(() => newClient());
    // Ten at a time: the functions emulator starts a worker process for each concurrent request, and 54
    // cold starts at once on a busy two-core machine can outlast Hosting's 60 s proxy timeout.
    await inChunks(BROWSERS.map((b, i) => () => scan(clients[i], code.uniqueQRCodeID, b.ua).then((res) => assert.equal(res.headers.get("x-scan-counted"), "recorded", `${res.status} ${b.ua}`))), 10);
    const a = await counted(merchant, code.codeId, BROWSERS.length);
    assert.equal(a.totalScans, BROWSERS.length);
    assert.equal(a.uniqueScanners, BROWSERS.length);
    assert.equal(a.botScans.total, 0);
    const tally = (k: "device" | "os" | "browser") => {
      const t: Record<string, number> = {};
      for (const b of BROWSERS) t[b[k]] = (t[b[k]] ?? 0) + 1;
      return t;
    };
    const asMap = (rows: Array<Record<string, any>>, k: string) => Object.fromEntries(rows.map((r) => [r[k], r.scans]));
    assert.deepEqual(asMap(a.devices, "device"), tally("device"));
    assert.deepEqual(asMap(a.operatingSystems, "os"), tally("os"));
    assert.deepEqual(asMap(a.browsers, "browser"), tally("browser"));
    // Countries: each client's address is placed by the geolocation database, as production places it.
    const places = await Promise.all(clients.map((c) => c.place()));
    const countries: Record<string, number> = {};
    for (const p of places) countries[p.country] = (countries[p.country] ?? 0) + 1;
    assert.deepEqual(asMap(a.countries, "country"), countries);
    assert.ok(!("unknown" in countries), "the database knows these addresses");
    // The hour grid holds every scan at this hour and weekday (the workspace counts in UTC).
    const now = localMoment(new Date(), "UTC");
    const gridTotal = a.hourByWeekday.flat().reduce((x: number, y: number) => x + y, 0);
    assert.equal(gridTotal, BROWSERS.length);
    const atNow = a.hourByWeekday[now.weekday][now.hour] + (now.hour > 0 ? a.hourByWeekday[now.weekday][now.hour - 1] : 0);
    assert.equal(atNow, BROWSERS.length, "scans sit at the current hour (or the one before, across a boundary)");
    assert.equal(a.timeZone, "UTC");
  });

  it("five people scanning one code three times each give 15 scans and 5 unique scanners", async () => {
    const code = await dynamicCode(merchant, "five");
    const people = Array.from({ length: 5 }, () => newClient());
    for (let round = 0; round < 3; round++) await Promise.all(people.map((p) => scan(p, code.uniqueQRCodeID)));
    const a = await counted(merchant, code.codeId, 15);
    assert.equal(a.totalScans, 15);
    assert.equal(a.uniqueScanners, 5);
    assert.equal(a.byDay[0].uniqueScanners, 5);
    assert.equal(a.repeatScans, 0);
    assert.equal(a.scans.filter((s: any) => s.unique).length, 5);
    const summary = toolResult(await callTool("svc.analytics.scan_summary", { days: 1 }, merchant.apiKey));
    assert.ok(summary.uniqueScanners >= 5);
  });

  // 200 at full size; 60 (three rounds of 20) still far outnumber the few repeats a minute allows.
  const LOOP = scaled(200, 60);
  it(`a ${LOOP}-scan loop from one client is redirected every time but counts as repeats`, async () => {
    const code = await dynamicCode(merchant, "loop");
    const looper = newClient();
    const started = Date.now();
    let notRecorded = 0;
    for (let i = 0; i < LOOP; i += 20) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => scan(looper, code.uniqueQRCodeID, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148")));
      for (const res of answers) assert.equal(res.status, 302);
      notRecorded += answers.filter((res) => res.headers.get("x-scan-counted") === NOT_RECORDED).length;
    }
    const minutes = Math.floor(Date.now() / 60_000) - Math.floor(started / 60_000) + 1;
    const a = await counted(merchant, code.codeId, LOOP - notRecorded);
    // Past its per-minute limit on an instance a client's scans are answered, not recorded, but its marker (a machine's).
    assert.equal(a.totalScans + a.repeatScans + a.botScans.total, LOOP - notRecorded, "every recorded scan is accounted for");
    assert.ok(a.totalScans <= 1 + REPEATS_PER_MINUTE * minutes, `counted ${a.totalScans} in ${minutes} minute(s)`);
    assert.ok(a.repeatScans + a.botScans.total >= LOOP - notRecorded - 1 - REPEATS_PER_MINUTE * minutes);
    assert.equal(a.uniqueScanners, 1);
  });

  // 2,000 at full size; 200 random User-Agents from one address still dwarf the handful of people they may count as.
  const FLOOD = scaled(2000, 200);
  it(`${FLOOD.toLocaleString("en-US")} requests from one address with random User-Agents count as a handful of people, all recorded; another workspace's concurrent scans all count`, async () => {
    const code = await dynamicCode(merchant, "flood");
    const neighbour = await createMerchant();
    const neighbourCode = await dynamicCode(neighbour, "neighbour");
    const flooder = newClient();
    const rand = prng(2000);
    const agents = Array.from({ length: FLOOD }, () => unrecognisedUserAgent(rand));
    // Strings the parser's loose patterns take for a real browser (see unit/scan-bounds) are one visitor each.
    const lookLikeBrowsers = new Set(agents.filter((ua) => agentOf(ua).recognised)).size;
    const started = Date.now();
    const people = BROWSERS.slice(0, 20).map((b) => ({ client: newClient(), ua: b.ua }));
    const neighbourScans = inChunks(people.map((p) => () => scan(p.client, neighbourCode.uniqueQRCodeID, p.ua)), 4);
    let next = 0;
    let notRecorded = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < agents.length) {
          const res = await scan(flooder, code.uniqueQRCodeID, agents[next++]);
          assert.equal(res.status, 302);
          if (res.headers.get("x-scan-counted") === NOT_RECORDED) notRecorded++;
        }
      }),
    );
    for (const res of await neighbourScans) assert.equal(res.headers.get("x-scan-counted"), "recorded");
    const minutes = Math.floor(Date.now() / 60_000) - Math.floor(started / 60_000) + 1;
    // Past its per-minute limit on an instance (scans/clientLimit.ts) a request is answered only; every other one is recorded.
    const a = await counted(merchant, code.codeId, FLOOD - notRecorded);
    assert.equal(a.totalScans + a.repeatScans + a.botScans.total, FLOOD - notRecorded, "every request within the limit is recorded: people, repeats or machines");
    const handful = 1 + REPEATS_PER_MINUTE * minutes + lookLikeBrowsers;
    assert.ok(a.totalScans <= handful, `counted ${a.totalScans} people's scans in ${minutes} minute(s); at most ${handful}`);
    assert.ok(a.uniqueScanners <= 1 + lookLikeBrowsers, `${a.uniqueScanners} unique scanners`);
    const b = await counted(neighbour, neighbourCode.codeId, people.length);
    assert.equal(b.totalScans, people.length, "the other workspace's scans are all counted");
    assert.equal(b.uniqueScanners, people.length);
    // The code's rollups name browsers and systems from the closed sets only.
    const rollups = (await firestore().collection("workspaces").doc(merchant.merchantId).collection("codeDays").where("codeId", "==", code.codeId).get()).docs;
    assert.ok(rollups.length > 0);
    for (const doc of rollups) {
      for (const name of Object.keys(doc.get("br") ?? {})) assert.ok(BROWSER_NAMES.has(name) || name === OTHER || name === "unknown", name);
      for (const name of Object.keys(doc.get("os") ?? {})) assert.ok(OS_NAMES.has(name) || name === OTHER || name === "unknown", name);
    }
  });

  it("200 people with real, varied browsers behind one shared address count as at least 150 people, and no more than the address's budget of newcomers", async () => {
    const code = await dynamicCode(merchant, "shop-wifi");
    // In process, with the scans' time passed in: all 200 at one instant of one newcomer window (a crowd that
    // spans two windows may count every one of its people), with no wait for a window to start. 200 people
    // are needed at every scale: the crowd must outnumber the 150 slots for the budget to show.
    const identity = { merchantId: merchant.merchantId, codeId: code.codeId, uniqueQRCodeID: code.uniqueQRCodeID, campaign: null, timeZone: "UTC" };
    const shopWifi = `203.0.113.${1 + Math.floor(Math.random() * 250)}`;
    const at = new Date(thisWindowStart(NEWCOMER_WINDOW_MS));
    const crowd = realCrowd(200);
    const concurrency = 10;
    for (let i = 0; i < crowd.length; i += concurrency) {
      await Promise.all(
        crowd.slice(i, i + concurrency).map((ua) => consumeInProcess(identity, { headers: { "user-agent": ua }, address: shopWifi, at })),
      );
    }
    const a = await analytics(merchant, code.codeId);
    assert.equal(a.totalScans + a.repeatScans, 200, "every scan is recorded");
    assert.equal(a.uniqueScanners, a.totalScans, "each counted scan is a new person");
    // The budget: 150 slots, plus the unchecked few of each consumer instance that counted the crowd. Each
    // instance writes its own rollup shards (`{instance}~{slot}~{codeId}~{day}`), so they name the instances.
    const shards = await firestore().collection("workspaces").doc(merchant.merchantId).collection("codeDays").where("codeId", "==", code.codeId).where("shard", "==", true).get();
    const instances = new Set(shards.docs.map((d) => d.id.split("~")[0])).size;
    assert.ok(instances >= 1, "the crowd's shards are not folded yet");
    assert.ok(a.uniqueScanners >= 150, `${a.uniqueScanners} people counted`);
    const budget = NEWCOMER_SLOTS + NEWCOMERS_UNCHECKED * instances;
    assert.ok(a.uniqueScanners <= budget, `${a.uniqueScanners} people counted; the budget on ${instances} instance(s) is ${budget}`);
    console.log(`      200 real browsers behind one address, served by ${instances} instance(s): ${a.uniqueScanners} people, ${a.repeatScans} over the newcomer budget`);
  });

  it("a workspace whose scans cannot be counted, or whose writes Firestore refuses, fails none of another workspace's scans made alongside", async () => {
    const frozen = await createMerchant();
    const frozenCode = await dynamicCode(frozen, "frozen");
    const neighbour = await createMerchant();
    const neighbourCode = await dynamicCode(neighbour, "alongside");
    // Damaged data: the frozen workspace's stored time zone names no zone, so none of its scans can be
    // placed in a local day and counted (the consumer refuses them: they go to the dead letters).
    await firestore().collection("workspaces").doc(frozen.merchantId).update({ timeZone: "Nowhere/Atlantis" });
    // Through the front end: the frozen workspace's scans are still redirected, the other's all counted.
    const [frozenAnswers, neighbourAnswers] = await Promise.all([
      inChunks(Array.from({ length: 6 }, () => () => scan(newClient(), frozenCode.uniqueQRCodeID)), 3),
      inChunks(BROWSERS.slice(0, 12).map((b) => () => scan(newClient(), neighbourCode.uniqueQRCodeID, b.ua)), 4),
    ]);
    for (const res of frozenAnswers) {
      assert.equal(res.status, 302, "a scan that cannot be counted is still redirected");
      assert.equal(res.headers.get("x-scan-counted"), "recorded", "its arrival is published");
    }
    for (const res of neighbourAnswers) assert.equal(res.headers.get("x-scan-counted"), "recorded");
    const b = await counted(neighbour, neighbourCode.codeId, 12);
    assert.equal(b.totalScans, 12);
    assert.equal(b.uniqueScanners, 12);

    // In one instance, scans submitted while a commit is in flight go together in the next batch: the
    // frozen workspace's (whose campaign value is over Firestore's 1,048,487-byte limit for one field, so
    // Firestore refuses every write of them) and the other's share batches here, and only the frozen one's fail.
    const day = localMoment(new Date(), "UTC").day;
    const facts = (m: TestMerchant, code: { codeId: string; uniqueQRCodeID: string }, i: number, campaign: string | null = null) => ({
      ...pastScanFacts(m.merchantId, code, campaign, day, 12),
      at: new Date(),
      device: { device: "mobile", os: "iOS", browser: "Safari" },
      place: { country: "US", state: "Oregon", city: `Portland ${i}` },
    });
    const refused = "y".repeat(1_050_000);
    const inFlight = writeScan(facts(neighbour, neighbourCode, 0), { kind: "bot", reason: "crawler" }).then(() => null, (e: Error) => e); // opens a commit
    const together = await Promise.all([
      writeScan(facts(frozen, frozenCode, 0, refused), { kind: "bot", reason: "crawler" }).then(() => null, (e: Error) => e),
      ...Array.from({ length: 5 }, (_, i) => writeScan(facts(neighbour, neighbourCode, i), { kind: "human", unique: true, eventId: `along-${i}-${Date.now()}` }).then(() => null, (e: Error) => e)),
    ]);
    assert.equal(await inFlight, null);
    assert.ok(together[0] instanceof Error && /longer than 1048487 bytes/.test(together[0].message), String(together[0]));
    assert.deepEqual(together.slice(1), [null, null, null, null, null], "the other workspace's scans in the same batch are written");
    assert.equal((await analytics(neighbour, neighbourCode.codeId)).totalScans, 17);
  });

  it("the fold job logs and skips a rollup it cannot fold, and folds every other workspace's", async () => {
    const day = new Date(Date.now() - 4 * 86_400_000).toISOString().slice(0, 10);
    const stuck = await createMerchant();
    const fine = await createMerchant();
    const stuckCode = await dynamicCode(stuck, "fold-stuck");
    const codeDays = (m: TestMerchant) => firestore().collection("workspaces").doc(m.merchantId).collection("codeDays");
    // Folded together, the stuck rollup's documents pass 1 MiB, so its fold cannot be written.
    const base = `${stuckCode.codeId}~${day}`;
    await codeDays(stuck).doc(base).set({ day, codeId: stuckCode.codeId, shard: false, timeZone: "UTC", pad: "x".repeat(1_040_000) });
    const cities = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`US|Oregon|${String(i).padStart(100, "y")}`, 1]));
    await codeDays(stuck).doc(`${base}~other~0`).set({ day, codeId: stuckCode.codeId, shard: true, timeZone: "UTC", n: 1, ci: cities });
    const code = await dynamicCode(fine, "fold-fine");
    for (let i = 0; i < 4; i++) await writeScan(pastScanFacts(fine.merchantId, code, null, day, i), { kind: "human", unique: true, eventId: `fold-fine-${i}-${Date.now()}` });
    const result = await runScanMaintenance();
    assert.ok(result.rollupsSkipped >= 1, "the stuck rollup is skipped");
    assert.deepEqual((await codeDays(fine).where("codeId", "==", code.codeId).get()).docs.map((d) => d.id), [`${code.codeId}~${day}`], "the other workspace's shards are folded");
    assert.equal((await analytics(fine, code.codeId, 5)).totalScans, 4);
    assert.equal((await codeDays(stuck).doc(`${base}~other~0`).get()).exists, true, "the stuck rollup's shard is kept for a later run, not lost");
    // Clean up, so later runs of the job in this suite have nothing stuck.
    await codeDays(stuck).doc(`${base}~other~0`).delete();
  });

  it("one IPv6 host cannot mint people from the addresses of its /64: one browser is one person, and newcomers share the /64's budget", async () => {
    const m = await createMerchant();
    const code = await dynamicCode(m, "ipv6");
    const identity = { merchantId: m.merchantId, codeId: code.codeId, uniqueQRCodeID: code.uniqueQRCodeID, campaign: null, timeZone: "UTC" };
    // Every scan at one instant of one newcomer window: the crowd below must share one window's budget.
    const at = new Date(thisWindowStart(NEWCOMER_WINDOW_MS));
    const record = (address: string, ua: string) => consumeInProcess(identity, { headers: { "user-agent": ua }, address, at });
    // 30 addresses of one /64 (any host may use all of them), one browser: one person, then repeats.
    const outcomes = [];
    for (let i = 1; i <= 30; i++) outcomes.push(await record(`2001:db8:1:2::${i.toString(16)}`, PHONE));
    assert.equal(outcomes.filter((o) => o.counted && o.unique).length, 1, JSON.stringify(outcomes.slice(0, 3)));
    // Another /64 is another client.
    assert.deepEqual(await record("2001:db8:1:3::1", PHONE), { counted: true, unique: true });
    // Real, varied browsers from addresses of one /64: past the few an instance lets through, each new
    // person takes a slot of the /64's one newcomer budget (slots `n~{address hash}~{window}~{codeId}~{k}`).
    const crowd = realCrowd(12).filter((ua) => ua !== PHONE).slice(0, 10);
    for (const [i, ua] of crowd.entries()) await record(`2001:db8:1:4:${(i + 1).toString(16)}::1`, ua);
    const slots = (await firestore().collection("workspaces").doc(m.merchantId).collection("scans").get()).docs.filter((d) => d.id.startsWith("n~") && d.id.includes(`~${code.codeId}~`));
    assert.equal(new Set(slots.map((d) => d.id.split("~").slice(0, 4).join("~"))).size, 1, `one newcomer budget: ${slots.map((d) => d.id).join(", ")}`);
    assert.equal(slots.length, crowd.length - NEWCOMERS_UNCHECKED, "every newcomer past the unchecked few took a slot of it");
  });

  it("an arrival delivered again (or found again in the outbox) changes no person or unique count: its guard holds its scan id", async () => {
    const m = await createMerchant();
    const code = await dynamicCode(m, "redelivered");
    const known = { merchantId: m.merchantId, codeId: code.codeId, campaign: null, timeZone: "UTC" };
    const at = new Date();
    const arrive = (address: string) => arrivalOf({ method: "GET", headers: { "user-agent": PHONE }, address, place: { country: "US", state: "Oregon", city: "Portland" }, at, uniqueQRCodeID: code.uniqueQRCodeID, known });
    const first = await arrive("198.51.100.7");
    const again = await arrive("198.51.100.7"); // the same person's second scan: a minute slot
    const deliver = (a: Awaited<ReturnType<typeof arrive>>) => consumeArrival({ data: a.data, attributes: a.attributes });
    assert.deepEqual((await deliver(first)).outcome, { counted: true, unique: true });
    assert.deepEqual((await deliver(again)).outcome, { counted: true, unique: false });
    // Each delivered three more times, together and apart: the same answers, nothing more counted.
    const redelivered = await Promise.all([deliver(first), deliver(again), deliver(first), deliver(again)]);
    assert.deepEqual(redelivered.map((r) => r.outcome), [{ counted: true, unique: true }, { counted: true, unique: false }, { counted: true, unique: true }, { counted: true, unique: false }]);
    assert.deepEqual((await deliver(first)).outcome, { counted: true, unique: true });
    const a = await analytics(m, code.codeId);
    assert.equal(a.totalScans, 2);
    assert.equal(a.uniqueScanners, 1);
    assert.equal(a.scans.length, 2);
  });

  it("a scan at 23:30 in Los Angeles lands on that day for a workspace in America/Los_Angeles", async () => {
    const m = await createMerchant();
    const setTz = (timeZone: string, token = m.idToken) =>
      fetch(`${appUrl()}/api/console/workspace/time-zone`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify({ timeZone }) });
    assert.equal((await setTz("Mars/Olympus")).status, 400);
    assert.equal((await setTz("America/Los_Angeles")).status, 200);
    const code = await dynamicCode(m, "la");
    // Yesterday 23:30 in Los Angeles, whatever today is: the UTC instant is on the next UTC day.
    const today = localMoment(new Date(), "America/Los_Angeles").day;
    const yesterday = new Date(Date.parse(`${today}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const offsetHours = Number(new Intl.DateTimeFormat("en-US", { timeZone: "America/Los_Angeles", timeZoneName: "shortOffset" }).formatToParts(new Date(`${yesterday}T12:00:00Z`)).find((p) => p.type === "timeZoneName")!.value.replace("GMT", ""));
    const at = new Date(Date.parse(`${yesterday}T23:30:00Z`) - offsetHours * 3_600_000);
    assert.equal(localMoment(at, "America/Los_Angeles").hour, 23);
    assert.notEqual(at.toISOString().slice(0, 10), yesterday, "a UTC count would put it on the next day");
    const place = { country: "US", state: "California", city: "Los Angeles" };
    const outcome = await consumeInProcess({ merchantId: m.merchantId, codeId: code.codeId, uniqueQRCodeID: code.uniqueQRCodeID, campaign: null, timeZone: "America/Los_Angeles" }, { headers: { "user-agent": PHONE }, address: "203.0.113.7", place, at });
    assert.deepEqual(outcome, { counted: true, unique: true });
    const a = await analytics(m, code.codeId, 2);
    assert.equal(a.timeZone, "America/Los_Angeles");
    assert.deepEqual(a.byDay.map((d: any) => [d.date, d.scans]), [[yesterday, 1], [today, 0]]);
    assert.equal(a.scans[0].date, yesterday);
    assert.equal(a.hourByWeekday[localMoment(at, "America/Los_Angeles").weekday][23], 1);
  });

  it("stores no client address, User-Agent or cross-day identifier in any scan document", async () => {
    const m = await createMerchant();
    const code = await dynamicCode(m, "privacy");
    const clients = Array.from({ length: 6 }, () => newClient());
    const agents = BROWSERS.slice(0, 6).map((b) => b.ua);
    for (let i = 0; i < 3; i++) await Promise.all(clients.map((c, k) => scan(c, code.uniqueQRCodeID, agents[k])));
    await scan(clients[0], code.uniqueQRCodeID, "curl/8.4.0");
    await counted(m, code.codeId, 19);
    const docs = [
      ...(await firestore().collection("workspaces").doc(m.merchantId).collection("scans").get()).docs,
      ...(await firestore().collection("workspaces").doc(m.merchantId).collection("scanDays").get()).docs,
      ...(await firestore().collection("workspaces").doc(m.merchantId).collection("codeDays").get()).docs,
    ];
    assert.ok(docs.length >= 19);
    const stored = JSON.stringify(docs.map((d) => ({ id: d.id, ...d.data() })));
    for (const c of clients) {
      assert.ok(!stored.includes(c.presentedAs), `address ${c.presentedAs} stored`);
      assert.ok(!stored.includes(c.address), `address ${c.address} stored`);
    }
    for (const ua of [...agents, "curl/8.4.0"]) assert.ok(!stored.includes(ua), "User-Agent stored");
    assert.ok(!/\b\d{1,3}(\.\d{1,3}){3}\b/.test(stored), "nothing shaped like an IPv4 address");
    // Event ids carry a visitor hash keyed by the day's secret and the code: two codes never share one.
    const other = await dynamicCode(m, "privacy-2");
    await scan(clients[0], other.uniqueQRCodeID, agents[0]);
    await counted(m, other.codeId, 1);
    const ids = (await firestore().collection("workspaces").doc(m.merchantId).collection("scans").get()).docs.map((d) => d.id);
    const hashes = ids.filter((id) => id.startsWith("u~")).map((id) => id.split("~")[1]);
    assert.equal(new Set(hashes).size, hashes.length, "no visitor hash repeats across codes");
    // Rollups expire after the retention period (400 days by default), individual events after 35 days.
    for (const d of docs) {
      const expires = (d.get("expiresAt") as FirebaseFirestore.Timestamp).toMillis();
      const day = Date.parse(`${d.get("day")}T00:00:00Z`);
      const isEvent = d.ref.parent.id === "scans";
      assert.equal(Math.round((expires - day) / 86_400_000), isEvent ? 36 : 401, d.ref.path);
    }
    assert.ok(docs.some((d) => d.ref.parent.id === "scans") && docs.some((d) => d.ref.parent.id === "codeDays"));
  });

  it("folds the instances' rollup shards into one document per day and destroys expired daily secrets", async () => {
    const m = await createMerchant();
    const code = await dynamicCode(m, "fold");
    const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    const facts = (hour: number) => pastScanFacts(m.merchantId, code, "fall", day, hour);
    // Scans written faster than one a second go to further shards of this instance (one write a second each).
    for (let i = 0; i < 12; i++) await writeScan(facts(i), { kind: "human", unique: i % 3 === 0, eventId: `fold-${i}-${Date.now()}` });
    await writeScan(facts(5), { kind: "bot", reason: "crawler" });
    const before = await analytics(m, code.codeId, 5);
    const summaryBefore = toolResult(await callTool("svc.analytics.scan_summary", { days: 5 }, m.apiKey));
    const ws = firestore().collection("workspaces").doc(m.merchantId);
    const codeDocs = async () => (await ws.collection("codeDays").where("codeId", "==", code.codeId).get()).docs;
    const dayDocs = async () => (await ws.collection("scanDays").where("day", "==", day).get()).docs;
    assert.ok((await codeDocs()).length >= 2, "more than one shard");
    assert.ok((await codeDocs()).every((d) => d.get("shard") === true));
    const expiredSecret = firestore().collection("scanSecrets").doc("2001-01-01");
    await expiredSecret.set({ secret: Buffer.alloc(32), expiresAt: new Date("2001-01-03T00:00:00Z") });
    const result = await runScanMaintenance();
    assert.ok(result.shardsFolded >= 3 && result.secretsDestroyed >= 1);
    assert.equal((await expiredSecret.get()).exists, false);
    assert.deepEqual((await codeDocs()).map((d) => [d.id, d.get("shard")]), [[`${code.codeId}~${day}`, false]]);
    assert.deepEqual((await dayDocs()).map((d) => [d.id, d.get("shard")]), [[day, false]]);
    const folded = await analytics(m, code.codeId, 5);
    for (const k of ["totalScans", "uniqueScanners", "botScans", "byDay", "hourByWeekday", "devices", "countries", "regions", "cities"]) assert.deepEqual(folded[k], before[k], k);
    assert.equal(folded.totalScans, 12);
    assert.equal(folded.uniqueScanners, 4);
    const summaryAfter = toolResult(await callTool("svc.analytics.scan_summary", { days: 5 }, m.apiKey));
    for (const k of ["totalScans", "uniqueScanners", "byCampaign", "topCodes", "cities"]) assert.deepEqual(summaryAfter[k], summaryBefore[k], k);
    assert.equal((await runScanMaintenance()).shardsFolded, 0, "idempotent");
  });

  it("one run folds a rollup with more shards than a transaction holds (a hot code on many instances), every shard of it", async () => {
    const m = await createMerchant();
    const code = await dynamicCode(m, "many-shards");
    const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const codeDays = firestore().collection("workspaces").doc(m.merchantId).collection("codeDays");
    // The shards 8 instances leave of one code's day: 60 slots each, one scan in each.
    const shards = FOLD_SHARDS_MAX + 80;
    const batch = firestore().batch();
    for (let i = 0; i < shards; i++) {
      const shard = oneScanShard(code.codeId, day, `inst${i % 8}`, Math.floor(i / 8));
      batch.create(codeDays.doc(shard.id), shard.data);
    }
    await batch.commit();
    const result = await runScanMaintenance();
    assert.ok(result.shardsFolded >= shards, `${result.shardsFolded} shards folded`);
    const left = await codeDays.where("codeId", "==", code.codeId).get();
    assert.deepEqual(left.docs.map((d) => [d.id, d.get("shard"), d.get("n")]), [[`${code.codeId}~${day}`, false, shards]]);
    const figures = await analytics(m, code.codeId, 5);
    assert.equal(figures.totalScans, shards);
    assert.equal(figures.pending, false);
  });

  it("one run folds many rollups side by side, each whole, and counts every shard", async () => {
    const m = await createMerchant();
    const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const codeDays = firestore().collection("workspaces").doc(m.merchantId).collection("codeDays");
    const codeIds = Array.from({ length: 60 }, (_, i) => `side${i}x${Date.now().toString(36)}`);
    const batch = firestore().batch();
    for (const codeId of codeIds) {
      for (const slot of [0, 1, 2]) {
        const shard = oneScanShard(codeId, day, "inst", slot);
        batch.create(codeDays.doc(shard.id), shard.data);
      }
    }
    await batch.commit();
    const result = await runScanMaintenance();
    assert.ok(result.shardsFolded >= 3 * codeIds.length, `${result.shardsFolded} shards folded`);
    const docs = (await codeDays.get()).docs;
    assert.deepEqual(docs.map((d) => [d.id, d.get("shard"), d.get("n")]).sort(), codeIds.map((c) => [`${c}~${day}`, false, 3]).sort());
  });

  it("a 365-day query of one code reads only that code's rollups: at most 400 documents and 1 MB, whatever the rest of the workspace holds", async function () {
    this.timeout(300_000);
    const m = await createMerchant();
    const code = await dynamicCode(m, "year");
    const ws = firestore().collection("workspaces").doc(m.merchantId);
    // A year of folded days for this code, other codes' days, and full workspace days beside them (200 codes
    // and days of 1,000 codes at full size; what is read does not depend on how much is beside it).
    const OTHER_CODES = scaled(200, 20);
    const OTHER_CODES_PER_DAY = scaled(1000, 100);
    const today = localMoment(new Date(), "UTC").day;
    const dayOf = (back: number) => new Date(Date.parse(`${today}T12:00:00Z`) - back * 86_400_000).toISOString().slice(0, 10);
    // A shop's code: scanned from 20 cities a day (a code seen in 200 cities every day of a year would
    // weigh more: docs/data-model.md states the worst case).
    const cities = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`US|Oregon|City ${i}`, 1]));
    const writer = firestore().bulkWriter();
    for (let back = 0; back < 365; back++) {
      const day = dayOf(back);
      void writer.set(ws.collection("codeDays").doc(`${code.codeId}~${day}`), { codeId: code.codeId, day, shard: false, timeZone: "UTC", n: 2, u: 1, ci: cities });
      void writer.set(ws.collection("scanDays").doc(day), { day, shard: false, timeZone: "UTC", n: 400, c: Object.fromEntries(Array.from({ length: OTHER_CODES_PER_DAY }, (_, i) => [`other-${i}`, { n: 1 }])) });
    }
    for (let other = 0; other < OTHER_CODES; other++) for (let back = 0; back < 5; back++) {
      const day = dayOf(back);
      void writer.set(ws.collection("codeDays").doc(`other-${other}~${day}`), { codeId: `other-${other}`, day, shard: false, timeZone: "UTC", n: 1, ci: cities });
    }
    await writer.close();
    const before = opCounts().reads;
    const a = await codeAnalytics(m.merchantId, { codeId: code.codeId }, 365);
    const reads = opCounts().reads - before;
    assert.equal(a.totalScans, 730, "every day of the year counted, none of the other codes'");
    assert.ok(reads <= 400, `${reads} documents read`);
    // What those reads weigh: the code's own rollups only (the largest possible list of events aside).
    const docs = (await ws.collection("codeDays").where("codeId", "==", code.codeId).get()).docs;
    const bytes = docs.reduce((sum, d) => sum + Buffer.byteLength(JSON.stringify(d.data())), 0);
    assert.ok(bytes < 1_000_000, `${bytes} bytes of rollups`);
  });
});
