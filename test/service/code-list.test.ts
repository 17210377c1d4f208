// The console's code list through HTTP: search over title, destination, campaign and tags; filters; sorts;
// cursor pages that neither skip nor repeat; 7- and 30-day scans stored by the fold from the rollups; the
// list fields and totals kept in step with every write path (create, re-point, publish, unpublish) and
// backfilled for codes from before them. (Large workspaces: catalogue-scale.test.ts.)
import assert from "node:assert/strict";
import { baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { BROWSERS } from "../fixtures/user-agents";
import { writeScan } from "../../functions/src/store/scans";
import { pastScanFacts } from "../helpers/scans";
import { eventually } from "../helpers/poll";
import { consoleApi } from "../helpers/consoleApi";
import { runScanMaintenance } from "../../functions/src/scans/maintenance";
import { backfillCataloguePage, readCodeCounts } from "../../functions/src/store/catalogue";
import { Timestamp } from "firebase-admin/firestore";
import { db } from "../../functions/src/core/firebase";
import { addNewCodes } from "../../functions/src/store/codes";
import { opCounts } from "../../functions/src/store/opCounter";
import { CodeListQuerySchema, listCodePage, SEARCH_READ_BUDGET, SMALL_WORKSPACE_CODES } from "../../functions/src/codes/directory";
import type { QrCode } from "../../functions/src/codes/model";

const list = async (m: TestMerchant, query = "") => {
  const res = await consoleApi(`/codes${query ? `?${query}` : ""}`, m.idToken);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};

const titles = (page: any) => page.codes.map((c: any) => c.title);

describe("console code list: search, filters, sort, pages and recent scans", function () {
  this.timeout(120_000);
  let m: TestMerchant;
  const made: Record<string, any> = {};

  before(async () => {
    m = await createMerchant();
    const specs = [
      { title: "Lunch menu", destinationUrl: "https://bistro.example/menu/lunch", campaign: "spring", tags: ["tables"] },
      { title: "Dinner menu", destinationUrl: "https://bistro.example/menu/dinner", campaign: "spring", tags: ["tables", "evening"], dynamic: true },
      { title: "Window poster", destinationUrl: "https://bistro.example/offers?src=window", campaign: "Été 2026", dynamic: true },
      { title: "Wi-Fi card", destinationUrl: "https://wifi.example/join", tags: ["Counter"] },
      { title: "apple Review", destinationUrl: "https://reviews.example/bistro" },
    ];
    for (const s of specs) made[s.title] = toolResult(await callTool("svc.qr.create", s, m.apiKey));
  });

  it("lists newest first with the workspace's campaigns, and nothing of another workspace", async () => {
    const page = await list(m);
    assert.deepEqual(titles(page), ["apple Review", "Wi-Fi card", "Window poster", "Dinner menu", "Lunch menu"]);
    assert.equal(page.total, 5);
    assert.deepEqual(page.campaigns, ["spring", "Été 2026"].sort((a, b) => a.localeCompare(b)));
    assert.equal(page.nextCursor, null);
    assert.ok(page.codes.every((c: any) => c.qrImageUrl && c.qrSvgUrl && c.scans7 === 0 && c.scans30 === 0));
    const other = await createMerchant();
    toolResult(await callTool("svc.qr.create", { title: "Lunch menu elsewhere", destinationUrl: "https://other.example/" }, other.apiKey));
    const theirs = await list(other, "q=lunch");
    assert.deepEqual(titles(theirs), ["Lunch menu elsewhere"]);
  });

  it("searches title, destination, campaign and tags, ignoring case and width", async () => {
    assert.deepEqual(titles(await list(m, "q=MENU")), ["Dinner menu", "Lunch menu"]);
    assert.deepEqual(titles(await list(m, "q=src%3Dwindow")), ["Window poster"], "destination");
    assert.deepEqual(titles(await list(m, "q=%C3%A9t%C3%A9")), ["Window poster"], "campaign, accents kept");
    assert.deepEqual(titles(await list(m, "q=counter")), ["Wi-Fi card"], "tag");
    assert.deepEqual(titles(await list(m, "q=%EF%BD%8C%EF%BD%95%EF%BD%8E%EF%BD%83%EF%BD%88")), ["Lunch menu"], "full-width letters");
    const none = await list(m, "q=nothing-like-this");
    assert.equal(none.total, 0);
    assert.equal(none.workspaceTotal, 5);
  });

  it("filters by kind, status and campaign (or none), and sorts by title both ways", async () => {
    assert.deepEqual(titles(await list(m, "kind=dynamic")), ["Window poster", "Dinner menu"]);
    assert.deepEqual(titles(await list(m, "kind=static&campaign=spring")), ["Lunch menu"]);
    assert.deepEqual(titles(await list(m, "campaign=")), ["apple Review", "Wi-Fi card"]);
    assert.equal((await list(m, "status=published")).total, 0, "agents' codes are drafts");
    assert.deepEqual(titles(await list(m, "sort=title")), ["apple Review", "Dinner menu", "Lunch menu", "Wi-Fi card", "Window poster"]);
    assert.deepEqual(titles(await list(m, "sort=title&order=desc")), ["Window poster", "Wi-Fi card", "Lunch menu", "Dinner menu", "apple Review"]);
  });

  it("pages with cursors that never skip or repeat a code, and refuses a cursor of another sort", async () => {
    for (const sort of ["created", "title", "scans30"]) {
      const seen: string[] = [];
      let cursor: string | null = "";
      let pages = 0;
      while (cursor !== null) {
        const page: any = await list(m, `sort=${sort}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        assert.ok(page.codes.length <= 2);
        seen.push(...page.codes.map((c: any) => c.codeId));
        cursor = page.nextCursor;
        pages++;
      }
      assert.equal(pages, 3, sort);
      assert.equal(new Set(seen).size, 5, `${sort}: every code once`);
    }
    const first = await list(m, "limit=2");
    const wrong = await consoleApi(`/codes?sort=title&cursor=${encodeURIComponent(first.nextCursor)}`, m.idToken);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.code, "VALIDATION_FAILED");
    assert.match(wrong.body.message, /no longer valid/);
    for (const bad of ["cursor=%7B%7D", "sort=popularity", "limit=0", "limit=101", "kind=animated", "extra=1", `q=${"x".repeat(201)}`]) {
      const res = await consoleApi(`/codes?${bad}`, m.idToken);
      assert.equal(res.status, 400, bad);
    }
  });

  it("shows each code's people-scans in the last 7 and 30 days from the rollups, and sorts by them", async () => {
    const dinner = made["Dinner menu"];
    const poster = made["Window poster"];
    const client = newClient();
    for (const ua of [BROWSERS[0].ua, BROWSERS[1].ua]) {
      const res = await client.fetch(`${baseUrl()}/qr/${dinner.uniqueQRCodeID}`, { redirect: "manual", headers: { "User-Agent": ua } });
      assert.equal(res.status, 302);
    }
    // Twelve days ago: inside 30 days, outside 7.
    const day = new Date(Date.now() - 12 * 86_400_000).toISOString().slice(0, 10);
    const facts = (hour: number) => pastScanFacts(m.merchantId, poster, poster.campaign, day, hour);
    for (let i = 0; i < 3; i++) await writeScan(facts(i), { kind: "human", unique: true, eventId: `list-${i}` });
    await writeScan(facts(4), { kind: "bot", reason: "crawler" });

    // The scans sorts read counts the maintenance stores from the rollups: none yet, then these (the
    // redirect's once the consumer counted them).
    assert.equal((await list(m, "sort=scans30")).codes.find((c: any) => c.title === "Window poster").scans30, 0);
    await eventually(async () => (await firestore().collection("workspaces").doc(m.merchantId).collection("codeDays").where("codeId", "==", dinner.codeId).get()).docs.reduce((a, d) => a + Number(d.get("n") ?? 0), 0), (n) => n === 2, { what: "the dinner menu's scans counted" });
    const upkeep = await runScanMaintenance();
    assert.ok(upkeep.ledgersMoved >= 2, JSON.stringify(upkeep));
    const page = await list(m, "sort=scans7");
    const byTitle = Object.fromEntries(page.codes.map((c: any) => [c.title, c]));
    assert.equal(byTitle["Dinner menu"].scans7, 2);
    assert.equal(byTitle["Dinner menu"].scans30, 2);
    assert.equal(byTitle["Window poster"].scans7, 0);
    assert.equal(byTitle["Window poster"].scans30, 3, "bots are not counted");
    assert.equal(titles(page)[0], "Dinner menu");
    assert.equal(titles(await list(m, "sort=scans30"))[0], "Window poster");
  });

  it("keeps the directory in step with re-pointing, renaming, publishing and unpublishing", async () => {
    const lunch = made["Lunch menu"];
    assert.equal((await consoleApi(`/codes/${lunch.codeId}`, m.idToken, { body: { title: "Brunch menu", destinationUrl: "https://bistro.example/menu/brunch" } })).status, 200);
    assert.deepEqual(titles(await list(m, "q=brunch")), ["Brunch menu"]);
    assert.equal((await list(m, "q=lunch")).total, 0, "the old title and URL are gone");
    assert.equal((await consoleApi("/publish", m.idToken, { body: { kind: "codes", id: lunch.codeId } })).status, 200);
    assert.deepEqual(titles(await list(m, "status=published")), ["Brunch menu"]);
    assert.equal((await consoleApi(`/codes/${lunch.codeId}/unpublish`, m.idToken, { method: "POST" })).status, 200);
    assert.equal((await list(m, "status=published")).total, 0);
    const made2 = await consoleApi("/codes", m.idToken, { body: { title: "Made here", destinationUrl: "https://bistro.example/here" } });
    assert.equal(made2.status, 201);
    assert.deepEqual(titles(await list(m, "status=published")), ["Made here"], "console-made codes are published at once");
  });

  it("filters by tag, sorts by last change, and gives totals from counters (null where only a full read could tell)", async () => {
    assert.deepEqual(titles(await list(m, "tag=tables")), ["Dinner menu", "Brunch menu"]);
    assert.deepEqual(titles(await list(m, "tag=tables&q=dinner")), ["Dinner menu"]);
    assert.equal((await list(m, "tag=tables")).total, null);
    const updated = await list(m, "sort=updated");
    assert.equal(titles(updated)[0], "Made here");
    assert.equal(titles(updated)[1], "Brunch menu", "re-pointed after the others were made");
    assert.equal((await list(m, "kind=dynamic")).total, 2);
    assert.equal((await list(m, "campaign=spring")).total, 2);
    assert.equal((await list(m, "kind=dynamic&status=draft")).total, null);
    const counts = await readCodeCounts(m.merchantId);
    assert.deepEqual(counts, { total: 6, published: 1, drafts: 5, dynamic: 2, static: 4 });
  });

  it("backfills codes from before the catalogue: listed, counted once, even when one is changed meanwhile", async () => {
    const old = await createMerchant();
    const made = [];
    for (const t of ["Old one", "Old two", "Old three"]) made.push(toolResult(await callTool("svc.qr.create", { title: t, destinationUrl: "https://old.example/", campaign: "legacy" }, old.apiKey)));
    // Make them look like codes written before the list fields existed.
    const ws = firestore().collection("workspaces").doc(old.merchantId);
    for (const sub of ["codeCounts", "campaigns"]) for (const d of (await ws.collection(sub).get()).docs) await d.ref.delete();
    const { FieldValue } = await import("firebase-admin/firestore");
    for (const c of made) await ws.collection("codes").doc(c.codeId).update({ titleKey: FieldValue.delete(), searchTokens: FieldValue.delete(), catalogue: FieldValue.delete(), scans7: FieldValue.delete(), scans30: FieldValue.delete() });
    assert.deepEqual(titles(await list(old, "sort=title")), [], "no title key to sort by until backfilled");
    assert.equal((await list(old)).total, 0, "not counted until backfilled");
    // One is re-pointed before the backfill reaches it: it joins the totals then, and the backfill skips it.
    assert.equal((await consoleApi(`/codes/${made[0].codeId}`, old.idToken, { body: { destinationUrl: "https://old.example/one" } })).status, 200);
    let after: string | null = `workspaces/${old.merchantId}`;
    let upgraded = 0;
    do {
      const page = await backfillCataloguePage(after, 2);
      upgraded += page.upgraded;
      after = page.next && page.next.startsWith(`workspaces/${old.merchantId}/`) ? page.next : null;
    } while (after);
    assert.equal(upgraded, 2);
    assert.deepEqual(titles(await list(old)), ["Old three", "Old two", "Old one"]);
    assert.deepEqual(titles(await list(old, "q=two")), ["Old two"]);
    assert.deepEqual((await list(old)).campaigns, ["legacy"]);
    assert.equal((await list(old)).total, 3);
    const again = await backfillCataloguePage(`workspaces/${old.merchantId}`, 10);
    assert.equal(again.upgraded, 0, "a second pass changes nothing");
    assert.equal((await readCodeCounts(old.merchantId)).total, 3);
  });
});

describe("console code list: a search page's read budget", function () {
  this.timeout(180_000);

  // The product's bound, not the machine's: whatever the workspace's size, one search page reads at most
  // SEARCH_READ_BUDGET code documents (docs/data-model.md); the page then ends early with a cursor. In
  // process, counted by the store's read counter (as scan-truth's 365-day read bound is).
  it(`a search that matches almost nothing reads at most ${SEARCH_READ_BUDGET} codes, and says there is more`, async () => {
    const m = await createMerchant();
    const made = toolResult(await callTool("svc.qr.create", { title: "Patio card template", destinationUrl: "https://shop.example/patio" }, m.apiKey));
    const stored = (await firestore().collection("workspaces").doc(m.merchantId).collection("codes").doc(made.codeId).get()).data()!;
    const template = { ...(stored as QrCode), createdAt: (stored.createdAt as Timestamp).toDate(), updatedAt: (stored.updatedAt as Timestamp).toDate() };
    // More codes than the budget and than a small workspace (read whole): the budget has to cut the search.
    const seeded = SEARCH_READ_BUDGET + SMALL_WORKSPACE_CODES;
    for (let start = 0; start < seeded; start += 200) {
      const batch = db().batch();
      const codes = Array.from({ length: Math.min(200, seeded - start) }, (_, k) => ({
        ...template,
        codeId: `budget${String(start + k).padStart(6, "0")}`,
        uniqueQRCodeID: `budget-${m.merchantId.slice(0, 8)}-${start + k}`,
        title: `Patio card ${start + k}`,
        createdAt: new Date(Date.UTC(2026, 0, 1) + (start + k) * 60_000),
        updatedAt: new Date(Date.UTC(2026, 0, 1) + (start + k) * 60_000),
      }));
      addNewCodes(batch, m.merchantId, codes);
      await batch.commit();
    }
    assert.ok((await readCodeCounts(m.merchantId)).total > SMALL_WORKSPACE_CODES);
    const readsOf = async (query: Record<string, unknown>) => {
      const before = opCounts().reads;
      const page = await listCodePage(m.merchantId, CodeListQuerySchema.parse(query));
      return { page, reads: opCounts().reads - before };
    };
    // What every page reads besides the codes (the workspace's counts, its campaigns): a one-code page reads 2 codes.
    const overhead = (await readsOf({ limit: 1 })).reads - 2;
    // "card" is every code's word (Firestore answers it); "zq" is none's, so each code read is checked and refused.
    const { page, reads } = await readsOf({ q: "card zq" });
    const codesRead = reads - overhead;
    assert.deepEqual(page.codes, []);
    assert.ok(page.nextCursor, "the page ended at the budget, and its cursor goes on from there");
    assert.ok(codesRead <= SEARCH_READ_BUDGET, `one search page read ${codesRead} codes; the budget is ${SEARCH_READ_BUDGET}`);
    assert.ok(codesRead >= SEARCH_READ_BUDGET, `${codesRead} codes read: the search ran up to its budget`);
    // A search that does match still finds its code within the budget (a recent one: newest first).
    const found = await listCodePage(m.merchantId, CodeListQuerySchema.parse({ q: "patio card 1090" }));
    assert.deepEqual(found.codes.map((c) => c.code.title), ["Patio card 1090"]);
  });
});
