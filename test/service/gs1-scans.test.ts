// Resolutions are scans (issue 37, item 3): what the resolver redirects through the local front end is
// counted like a /qr/ scan (person, repeat, machine, place, device, local time), split by link type, and a
// linkset fetch is a machine's, counted apart; read back by REST (GET /api/gs1/items/:itemId/analytics).
import assert from "node:assert/strict";
import { appUrl, baseUrl } from "../helpers/env";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { callTool, toolResult } from "../helpers/rpc";
import { consoleApi } from "../helpers/consoleApi";
import { newClient, type TestClient } from "../helpers/clients";
import { newGtin } from "../helpers/gs1";
import { BROWSERS, MACHINES } from "../fixtures/user-agents";
import { compressDigitalLink } from "../../functions/src/gs1/grammar";

const IPHONE = BROWSERS[0];
const ANDROID = BROWSERS[6];
const CRAWLER = MACHINES.find((m) => m.reason === "preview" && !m.method && !m.headers)!;

async function api(merchant: TestMerchant, path: string, init: RequestInit = {}) {
  const res = await fetch(`${appUrl()}${path}`, { ...init, headers: { "Content-Type": "application/json", Authorization: `Bearer ${merchant.apiKey}`, ...(init.headers as object) } });
  return { status: res.status, body: (await res.json()) as any };
}

function resolveAs(client: TestClient, path: string, ua: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  return client.fetch(`${baseUrl()}${path}`, { method: init.method ?? "GET", redirect: "manual", headers: { "User-Agent": ua, ...init.headers } });
}

describe("GS1 resolutions counted as scans", function () {
  this.timeout(120_000);
  let merchant: TestMerchant;
  let other: TestMerchant;
  let gtin: string;
  let gtinItem: string;
  let lotItem: string;

  before(async () => {
    [merchant, other] = await Promise.all([createMerchant(), createMerchant()]);
    gtin = newGtin();
    const item = await api(merchant, "/api/gs1/items", {
      method: "POST",
      body: JSON.stringify({
        value: gtin,
        links: [
          { linkType: "gs1:pip", href: "https://example.com/tea", title: "Tea", hreflang: ["en"], isDefault: true },
          { linkType: "gs1:recipeInfo", href: "https://example.com/tea/recipes", title: "Recipes" },
        ],
      }),
    });
    assert.equal(item.status, 201, JSON.stringify(item.body));
    gtinItem = item.body.itemId;
    const lot = await api(merchant, "/api/gs1/items", {
      method: "POST",
      body: JSON.stringify({ value: gtin, qualifiers: [{ ai: "10", value: "B7" }], links: [{ linkType: "gs1:recallStatus", href: "https://example.com/tea/recall", title: "Recall", isDefault: true }] }),
    });
    assert.equal(lot.status, 201, JSON.stringify(lot.body));
    lotItem = lot.body.itemId;
  });

  it("counts people by link type, repeats, machines and linkset fetches apart, and places each scan", async () => {
    const [alice, bob, carol, dave, crawler, checker] = Array.from({ length: 6 }, () => newClient());
    const answers: Array<[string, Response]> = [];
    const go = async (label: string, p: Promise<Response>) => {
      const res = await p;
      answers.push([label, res]);
      return res;
    };
    // Alice: the default link twice (a person, then her repeat within the minute's allowance).
    const first = await go("alice 1", resolveAs(alice, `/01/${gtin}`, IPHONE.ua));
    assert.equal(first.status, 307);
    assert.equal(first.headers.get("location"), "https://example.com/tea");
    assert.equal(first.headers.get("x-scan-counted"), "true");
    assert.equal((await go("alice 2", resolveAs(alice, `/01/${gtin}`, IPHONE.ua))).headers.get("x-scan-counted"), "true");
    // Bob asks for recipes: a person sent to gs1:recipeInfo.
    const recipes = await go("bob", resolveAs(bob, `/01/${gtin}?linkType=gs1:recipeInfo`, ANDROID.ua));
    assert.equal(recipes.headers.get("location"), "https://example.com/tea/recipes");
    assert.equal(recipes.headers.get("x-scan-counted"), "true");
    // Carol scans the compressed form of the lot's URI: counted for the lot's item, not the GTIN's.
    const compressed = new URL(compressDigitalLink(`${baseUrl()}/01/${gtin}/10/B7`)).pathname;
    const lot = await go("carol", resolveAs(carol, compressed, ANDROID.ua));
    assert.equal(lot.status, 307);
    assert.equal(lot.headers.get("location"), "https://example.com/tea/recall");
    assert.equal(lot.headers.get("x-scan-counted"), "true");
    // Machines: a linkset fetch (even from a phone's browser), a link-preview crawler, a HEAD probe.
    const linkset = await go("dave", resolveAs(dave, `/01/${gtin}?linkType=linkset`, IPHONE.ua));
    assert.equal(linkset.status, 200);
    assert.equal(linkset.headers.get("x-scan-counted"), "false; reason=linkset");
    const byAccept = await go("dave accept", resolveAs(dave, `/01/${gtin}`, IPHONE.ua, { headers: { Accept: "application/linkset+json" } }));
    assert.equal(byAccept.headers.get("x-scan-counted"), "false; reason=linkset");
    assert.equal((await go("crawler", resolveAs(crawler, `/01/${gtin}`, CRAWLER.ua))).headers.get("x-scan-counted"), `false; reason=${CRAWLER.reason}`);
    assert.equal((await go("checker", resolveAs(checker, `/01/${gtin}`, IPHONE.ua, { method: "HEAD" }))).headers.get("x-scan-counted"), "false; reason=head-request");
    // Answers that resolve nothing are not scans: no such link type, no such key, bad syntax.
    for (const path of [`/01/${gtin}?linkType=gs1:menuInfo`, `/01/${newGtin()}`, "/01/123"]) {
      const res = await go(path, resolveAs(alice, path, IPHONE.ua));
      assert.ok(res.status === 404 || res.status === 400, `${path}: ${res.status}`);
      assert.equal(res.headers.get("x-scan-counted"), null, path);
    }
    for (const [, res] of answers) await res.arrayBuffer();

    const figures = await api(merchant, `/api/gs1/items/${gtinItem}/analytics?days=7`);
    assert.equal(figures.status, 200, JSON.stringify(figures.body));
    const a = figures.body;
    assert.equal(a.itemId, gtinItem);
    assert.equal(a.uri, `${baseUrl()}/01/${gtin}`);
    assert.equal(a.totalScans, 3, "Alice twice and Bob");
    assert.equal(a.uniqueScanners, 2);
    assert.deepEqual(a.byLinkType, [{ linkType: "gs1:pip", scans: 2 }, { linkType: "gs1:recipeInfo", scans: 1 }]);
    assert.equal(a.linksetFetches, 2);
    assert.deepEqual(a.botScans.byReason, { linkset: 2, [CRAWLER.reason]: 1, "head-request": 1 });
    assert.deepEqual(a.devices, [{ device: "mobile", scans: 3 }]);
    assert.deepEqual(a.operatingSystems, [{ os: "iOS", scans: 2 }, { os: "Android", scans: 1 }]);
    const places = await Promise.all([alice.place(), bob.place()]);
    const expectedCountries = new Map<string, number>();
    for (const [place, n] of [[places[0], 2], [places[1], 1]] as const) expectedCountries.set(place.country, (expectedCountries.get(place.country) ?? 0) + n);
    assert.deepEqual(Object.fromEntries(a.countries.map((c: { country: string; scans: number }) => [c.country, c.scans])), Object.fromEntries(expectedCountries));
    assert.equal(a.byDay.reduce((n: number, d: { scans: number }) => n + d.scans, 0), 3);
    assert.equal(a.hourByWeekday.flat().reduce((n: number, h: number) => n + h, 0), 3);

    // The workspace's own totals include its items' people, each item named as a code gs1_<itemId>.
    const summary = toolResult(await callTool("svc.analytics.scan_summary", { days: 7, fields: ["totalScans", "topCodes"] }, merchant.apiKey));
    assert.equal(summary.totalScans, 4);
    assert.deepEqual(summary.topCodes, [{ codeId: `gs1_${gtinItem}`, scans: 3, uniqueScanners: 2 }, { codeId: `gs1_${lotItem}`, scans: 1, uniqueScanners: 1 }]);
    // The same figures by MCP, in the gs1 toolset.
    const byTool = toolResult(await callTool("svc.gs1.get_analytics", { itemId: gtinItem, days: 7, fields: ["totalScans", "byLinkType", "linksetFetches"] }, merchant.apiKey));
    assert.deepEqual([byTool.totalScans, byTool.byLinkType, byTool.linksetFetches], [3, a.byLinkType, 2]);
    // The console's item page reads the same figures.
    const inConsole = await consoleApi(`/gs1/items/${gtinItem}/analytics?days=7`, merchant.idToken);
    assert.equal(inConsole.status, 200, JSON.stringify(inConsole.body));
    assert.deepEqual([inConsole.body.totalScans, inConsole.body.byLinkType, inConsole.body.linksetFetches], [3, a.byLinkType, 2]);
    // The console's dashboard names them by their key path.
    const dashboard = await consoleApi("/dashboard?days=7", merchant.idToken);
    assert.equal(dashboard.status, 200, JSON.stringify(dashboard.body));
    assert.deepEqual(dashboard.body.topCodes.map((c: { title: string | null }) => c.title), [`GS1 /01/${gtin}`, `GS1 /01/${gtin}/10/B7`]);

    const lotFigures = await api(merchant, `/api/gs1/items/${lotItem}/analytics`);
    assert.equal(lotFigures.status, 200);
    assert.equal(lotFigures.body.totalScans, 1);
    assert.deepEqual(lotFigures.body.byLinkType, [{ linkType: "gs1:recallStatus", scans: 1 }]);
  });

  it("keeps an item's scans to its workspace, and refuses a bad window", async () => {
    const foreign = await api(other, `/api/gs1/items/${gtinItem}/analytics`);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, "NOT_FOUND");
    assert.equal((await consoleApi(`/gs1/items/${gtinItem}/analytics`, other.idToken)).status, 404);
    const foreignTool = await callTool("svc.gs1.get_analytics", { itemId: gtinItem }, other.apiKey);
    assert.equal(foreignTool.body.error?.data?.code, "NOT_FOUND", foreignTool.text);
    for (const days of ["0", "366", "x"]) {
      const bad = await api(merchant, `/api/gs1/items/${gtinItem}/analytics?days=${days}`);
      assert.equal(bad.status, 400, days);
      assert.equal(bad.body.code, "UNKNOWN_QUERY_PARAMETER"); // the REST edge's code for any bad query
      assert.match(bad.body.message, /days/, days);
    }
  });
});
