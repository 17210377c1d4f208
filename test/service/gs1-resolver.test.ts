// GS1 items and the GS1-Conformant resolver through the local front end: a small catalogue registered by
// REST and MCP, resolved at /01/... (checklist: docs/gs1-resolver.md). The resolver's behaviour is checked
// on both hosts it answers: the shared public host, and a merchant's own active domain over HTTPS through
// the load balancer path, its catalogue registered there (docs/gs1-on-brand-hosts.md). Registration rules
// of the shared host (refusals, one owner, sources, reassignment) run on the shared host only.
import assert from "node:assert/strict";
import { appUrl, baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { assertValidLinkset, assertValidResolverDescription, newGtin } from "../helpers/gs1";
import { TestDns } from "../helpers/dns";
import { activeDomain, brandHostClient } from "../helpers/brandHost";
import { compressDigitalLink } from "../../functions/src/gs1/grammar";
import { posRead } from "../../functions/src/gs1/pos";
import { decodeAtSides } from "../../functions/src/designs/verify";
import { approveListing } from "../../functions/src/listings/service";
import { writeRateLimitOverride } from "../../functions/src/store/rateLimits";
import { adminCli, runAdminCli } from "../helpers/admin";
import { randomUUID } from "node:crypto";

const client = newClient();


function putItem(merchant: TestMerchant, body: unknown) {
  return fetch(`${appUrl()}/api/gs1/items`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${merchant.apiKey}` },
    body: JSON.stringify(body),
  });
}

async function api(merchant: TestMerchant, path: string, method = "GET") {
  const res = await fetch(`${appUrl()}${path}`, { method, headers: { Authorization: `Bearer ${merchant.apiKey}` } });
  return { status: res.status, body: (await res.json()) as any };
}

/** A host the resolver answers on: where items are registered (domainId) and how a phone reaches it. */
interface ResolverHost {
  name: string;
  shared: boolean;
  /** Readies the host for `merchant`: the domainId its items name (none on the shared host). */
  setUp(merchant: TestMerchant): Promise<string | undefined>;
  tearDown(): Promise<void> | void;
  /** The origin every URI answered names (linkset anchors, Link headers, the description file). */
  origin(): string;
  fetch(path: string, init: RequestInit): Promise<Response>;
}

const sharedHost: ResolverHost = {
  name: "the shared host",
  shared: true,
  setUp: () => Promise.resolve(undefined),
  tearDown: () => undefined,
  origin: () => baseUrl(),
  fetch: (path, init) => client.fetch(`${baseUrl()}${path}`, init),
};

function merchantsHost(): ResolverHost {
  let dns: TestDns | undefined;
  let hostname = "";
  let phone: ReturnType<typeof brandHostClient> | undefined;
  return {
    name: "a merchant's own host",
    shared: false,
    async setUp(merchant) {
      dns = new TestDns();
      await dns.start();
      await writeRateLimitOverride(merchant.merchantId, "bulk", 100_000);
      const domain = await activeDomain(merchant, dns);
      hostname = domain.hostname;
      phone = brandHostClient(hostname);
      return domain.domainId;
    },
    tearDown: () => dns?.close(),
    origin: () => `https://${hostname}`,
    fetch: (path, init) => phone!.fetch(path, init),
  };
}

for (const host of [sharedHost, merchantsHost()]) {
describe(`GS1 items and the GS1-Conformant resolver on ${host.name}`, function () {
  this.timeout(120_000);
  let merchant: TestMerchant;
  let other: TestMerchant;
  let rice: string;
  let pasta: string;
  let oil: string;
  let domainId: string | undefined;
  const origin = () => host.origin();
  const resolve = (path: string, headers: Record<string, string> = {}, method = "GET") => host.fetch(path, { method, redirect: "manual", headers });
  /** Registers on the host under test (with its domainId on a merchant's host). */
  const put = (m: TestMerchant, body: object) => putItem(m, { ...body, domainId });

  before(async () => {
    [merchant, other] = await Promise.all([createMerchant(), createMerchant()]);
    domainId = await host.setUp(merchant);
    rice = newGtin();
    pasta = newGtin();
    oil = newGtin();
    // Rice: three languages and several link types at the GTIN level; a lot and a serial below it.
    const created = await put(merchant, {
      value: rice,
      description: "Risotto rice 1 kg",
      links: [
        { linkType: "gs1:pip", href: "https://example.com/rice/en", title: "Rice", hreflang: ["en"], type: "text/html", isDefault: true },
        { linkType: "gs1:pip", href: "https://example.com/rice/fr", title: "Riz", hreflang: ["fr"], type: "text/html" },
        { linkType: "gs1:pip", href: "https://example.com/rice/de", title: "Reis", hreflang: ["de"], type: "text/html" },
        { linkType: "gs1:recipeInfo", href: "https://example.com/rice/recipes?src=pack", title: "Recipes", hreflang: ["en"] },
        { linkType: "gs1:sustainabilityInfo", href: "https://example.com/rice/planet", title: "Sustainability" },
        { linkType: "gs1:promotion", href: "https://example.com/rice/promo-gb", title: "Offer (GB)", context: ["GB"] },
      ],
    });
    assert.equal(created.status, 201, await created.clone().text());
    const lot = await put(merchant, {
      value: rice,
      qualifiers: [{ ai: "10", value: "LOT42" }],
      links: [{ linkType: "gs1:recallStatus", href: "https://example.com/rice/recall/LOT42", title: "Recall status", isDefault: true }],
    });
    assert.equal(lot.status, 201, await lot.clone().text());
    const serial = toolResult(
      await callTool("svc.gs1.set_item", {
        key: "gtin",
        value: rice,
        qualifiers: [{ ai: "10", value: "LOT42" }, { ai: "21", value: "S/001" }],
        links: [{ linkType: "gs1:registerProduct", href: "https://example.com/rice/register", title: "Register", isDefault: true }],
        ...(domainId ? { domainId } : {}),
      }, merchant.apiKey),
    );
    assert.equal(serial.created, true);
    assert.equal(serial.uri, `${origin()}/01/${rice}/10/LOT42/21/S%2F001`);
    for (const [gtin, name] of [[pasta, "pasta"], [oil, "oil"]]) {
      const res = await put(merchant, { value: gtin, links: [{ linkType: "gs1:pip", href: `https://example.com/${name}`, title: name, isDefault: true }] });
      assert.equal(res.status, 201);
    }
  });
  after(() => host.tearDown());

  it("redirects to the default link, with a Link header to the linkset, CORS, and the query passed on", async () => {
    const res = await resolve(`/01/${rice}?foo=bar&17=261231`);
    assert.equal(res.status, 307);
    assert.equal(res.headers.get("location"), "https://example.com/rice/en?foo=bar&17=261231");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("link") ?? "", new RegExp(`<${origin()}/01/${rice}\\?linkType=linkset>; rel="linkset"; type="application/linkset\\+json"`));
    // A GTIN-13 and a trailing slash resolve alike.
    const short = await resolve(`/01/${rice.slice(1)}/`);
    assert.equal(short.status, 307);
    assert.equal(short.headers.get("location"), "https://example.com/rice/en");
  });

  it("matches Accept-Language and the requested link type, keeping a target's own query", async () => {
    assert.equal((await resolve(`/01/${rice}`, { "Accept-Language": "fr-FR,fr;q=0.9" })).headers.get("location"), "https://example.com/rice/fr");
    assert.equal((await resolve(`/01/${rice}`, { "Accept-Language": "de" })).headers.get("location"), "https://example.com/rice/de");
    const recipes = await resolve(`/01/${rice}?linkType=gs1:recipeInfo&x=1`);
    assert.equal(recipes.status, 307);
    assert.equal(recipes.headers.get("location"), "https://example.com/rice/recipes?src=pack&x=1");
    const full = await resolve(`/01/${rice}?linkType=${encodeURIComponent("https://gs1.org/voc/sustainabilityInfo")}`);
    assert.equal(full.headers.get("location"), "https://example.com/rice/planet");
    const promo = await resolve(`/01/${rice}?linkType=gs1:promotion&context=GB`);
    assert.equal(promo.headers.get("location"), "https://example.com/rice/promo-gb?context=GB");
  });

  it("answers 404 for a link type the item lacks and for a key it does not know; never 200", async () => {
    const missing = await resolve(`/01/${pasta}?linkType=gs1:recipeInfo`);
    assert.equal(missing.status, 404);
    assert.match(((await missing.json()) as any).message, /No link of type gs1:recipeInfo/);
    assert.equal((await resolve(`/01/${pasta}?linkType=gs1:madeUp`)).status, 404);
    const unknown = await resolve(`/01/${newGtin()}`);
    assert.equal(unknown.status, 404);
    assert.match(((await unknown.json()) as any).message, /no links for GTIN/);
  });

  it("resolves qualifiers at the most specific level and walks up to the GTIN for other link types", async () => {
    assert.equal((await resolve(`/01/${rice}/10/LOT42`)).headers.get("location"), "https://example.com/rice/recall/LOT42");
    assert.equal((await resolve(`/01/${rice}/10/LOT42/21/S%2F001`)).headers.get("location"), "https://example.com/rice/register");
    assert.equal((await resolve(`/01/${rice}/10/LOT42/21/S%2F001?linkType=gs1:recallStatus`)).headers.get("location"), "https://example.com/rice/recall/LOT42");
    assert.equal((await resolve(`/01/${rice}/10/OTHER?linkType=gs1:pip`, { "Accept-Language": "fr" })).headers.get("location"), "https://example.com/rice/fr");
  });

  it("serves the linkset on linkType=linkset, linkType=all and Accept: application/linkset+json, with every level up to the GTIN", async () => {
    for (const [path, headers] of [
      [`/01/${rice}/10/LOT42/21/S%2F001?linkType=linkset`, {}],
      [`/01/${rice}/10/LOT42/21/S%2F001?linkType=all`, {}],
      [`/01/${rice}/10/LOT42/21/S%2F001`, { Accept: "application/linkset+json" }],
    ] as const) {
      const res = await resolve(path, headers);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("content-type"), "application/linkset+json");
      assert.equal(res.headers.get("location"), null);
      const body = (await res.json()) as any;
      assertValidLinkset(body);
      const { linkset } = body;
      assert.deepEqual(linkset.map((c: any) => c.anchor), [
        `${origin()}/01/${rice}/10/LOT42/21/S%2F001`,
        `${origin()}/01/${rice}/10/LOT42`,
        `${origin()}/01/${rice}`,
      ]);
      const gtinLevel = linkset[2];
      assert.equal(gtinLevel.itemDescription, "Risotto rice 1 kg");
      // The lot and serial items have no description of their own: the GTIN's, with their qualifiers.
      assert.deepEqual(linkset.slice(0, 2).map((c: any) => c.itemDescription), ["Risotto rice 1 kg, lot LOT42, serial S/001", "Risotto rice 1 kg, lot LOT42"]);
      assert.equal(gtinLevel["https://ref.gs1.org/voc/pip"].length, 3);
      assert.deepEqual(gtinLevel["https://ref.gs1.org/voc/defaultLink"], [{ href: "https://example.com/rice/en", title: "Rice" }]);
      for (const context of linkset) assert.equal(context["https://ref.gs1.org/voc/defaultLink"].length, 1);
    }
    // An item without a description: its key describes it, and the linkset is still GS1-valid.
    const pastaLinkset = (await (await resolve(`/01/${pasta}?linkType=all`)).json()) as any;
    assertValidLinkset(pastaLinkset);
    assert.equal(pastaLinkset.linkset[0].itemDescription, `GTIN ${pasta}`);
  });

  it("answers HEAD and OPTIONS (CORS preflight), and refuses other methods", async () => {
    const head = await resolve(`/01/${oil}`, {}, "HEAD");
    assert.equal(head.status, 307);
    assert.equal(head.headers.get("location"), "https://example.com/oil");
    const options = await resolve(`/01/${oil}`, { Origin: "https://elsewhere.example", "Access-Control-Request-Method": "GET" }, "OPTIONS");
    assert.equal(options.status, 204);
    assert.equal(options.headers.get("access-control-allow-origin"), "*");
    assert.match(options.headers.get("access-control-allow-methods") ?? "", /GET, HEAD, OPTIONS/);
    assert.equal((await resolve(`/01/${oil}`, {}, "POST")).status, 405);
  });

  it("answers 400 with a reason for bad syntax and bad check digits", async () => {
    const bad = `${oil.slice(0, 13)}${(Number(oil[13]) + 1) % 10}`;
    for (const [path, reason] of [
      [`/01/${bad}`, /wrong check digit/],
      [`/01/12345`, /8, 12, 13 or 14 digits/],
      [`/01/${oil}/21/S1/10/L1`, /order/],
      [`/01/${oil}/10`, /value is missing/],
      [`/01/${oil}/254/x`, /not a key qualifier/],
    ] as const) {
      const res = await resolve(path);
      assert.equal(res.status, 400, path);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.match(((await res.json()) as any).message, reason, path);
    }
  });

  it("decompresses compressed URIs, resolves them as the uncompressed URI and names it in Link rel=owl:sameAs", async () => {
    const uncompressed = `${origin()}/01/${rice}/10/LOT42/21/S%2F001`;
    const compressed = compressDigitalLink(uncompressed);
    const path = new URL(compressed).pathname;
    assert.match(path, /^\/[A-Za-z0-9_-]{10,}$/);
    const res = await resolve(`${path}?foo=bar`);
    assert.equal(res.status, 307);
    assert.equal(res.headers.get("location"), "https://example.com/rice/register?foo=bar");
    const link = res.headers.get("link") ?? "";
    assert.ok(link.includes(`<${uncompressed}>; rel="owl:sameAs"`), link);
    assert.ok(link.includes(`<${uncompressed}?linkType=linkset>; rel="linkset"`), link);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    // The linkset's subject is the uncompressed URI; a link type is followed as for the uncompressed URI.
    const linkset = await resolve(`${path}?linkType=linkset`);
    assert.equal(linkset.status, 200);
    assert.ok((linkset.headers.get("link") ?? "").includes(`<${uncompressed}>; rel="owl:sameAs"`));
    const linksetBody = (await linkset.json()) as any;
    assertValidLinkset(linksetBody);
    assert.equal(linksetBody.linkset[0].anchor, uncompressed);
    const byAccept = await resolve(path, { Accept: "application/linkset+json" });
    assert.equal(byAccept.status, 200);
    const byAcceptBody = (await byAccept.json()) as any;
    assertValidLinkset(byAcceptBody);
    assert.deepEqual(byAcceptBody, linksetBody);
    const recall = await resolve(`${path}?linkType=gs1:recallStatus`);
    assert.equal(recall.headers.get("location"), "https://example.com/rice/recall/LOT42");
    // A compressed GTIN without items: the standard's 404, still with owl:sameAs.
    const unknownGtin = newGtin();
    const unknown = await resolve(new URL(compressDigitalLink(`${origin()}/01/${unknownGtin}`)).pathname);
    assert.equal(unknown.status, 404);
    assert.ok((unknown.headers.get("link") ?? "").includes(`<${origin()}/01/${unknownGtin}>; rel="owl:sameAs"`));
    // A root word that is not a compressed URI is no GS1 URI: the site's 404 page, as before.
    for (const word of ["/ZZZZZZZZZZZZZZ", "/no-such-page-at-all"]) {
      const bad = await resolve(word);
      assert.equal(bad.status, 404, word);
      assert.match(bad.headers.get("content-type") ?? "", /^text\/html/);
      assert.match(await bad.text(), /Page not found/);
    }
  });

  it("makes the item's QR code for packaging: checked, point-of-sale defaults, plain or compressed", async () => {
    const mine = await api(merchant, "/api/gs1/items?limit=100");
    const serialItem = mine.body.items.find((i: any) => i.key.value === rice && i.qualifiers.length === 2);
    for (const compressed of [false, true]) {
      const res = await fetch(`${appUrl()}/api/gs1/items/${serialItem.itemId}/qr.png?compressed=${compressed}`, { headers: { Authorization: `Bearer ${merchant.apiKey}` } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "image/png");
      const text = res.headers.get("x-gs1-encoded-uri")!;
      assert.equal(text, compressed ? compressDigitalLink(serialItem.uri) : serialItem.uri);
      assert.match(res.headers.get("x-gs1-error-correction") ?? "", /^[QM]$/);
      assert.ok(Number(res.headers.get("x-print-min-side-mm")) >= 10);
      const [outcome] = await decodeAtSides(Buffer.from(await res.arrayBuffer()), "png", [300]);
      assert.equal(outcome.zxing, text);
      assert.equal(outcome.qr, text);
      assert.deepEqual(posRead(text), { gtin: rice, lot: "LOT42", serial: "S/001" });
      // Scanned by a phone, the compressed code resolves like the plain one.
      const scanned = await resolve(new URL(text).pathname);
      assert.equal(scanned.headers.get("location"), "https://example.com/rice/register");
    }
    assert.equal((await fetch(`${appUrl()}/api/gs1/items/${serialItem.itemId}/qr.png`, { headers: { Authorization: `Bearer ${other.apiKey}` } })).status, 404);
    const badQuery = await fetch(`${appUrl()}/api/gs1/items/${serialItem.itemId}/qr.png?compressed=maybe`, { headers: { Authorization: `Bearer ${merchant.apiKey}` } });
    assert.equal(badQuery.status, 400);
  });

  it("describes itself at /.well-known/gs1resolver", async () => {
    const res = await resolve("/.well-known/gs1resolver");
    assert.equal(res.status, 200);
    const description = (await res.json()) as any;
    assertValidResolverDescription(description);
    assert.equal(description.resolverRoot, origin());
    assert.ok(description.supportedPrimaryKeys.includes("01"));
    assert.deepEqual(description.supportedLinkType[0], { namespace: "https://gs1.org/voc/", prefix: "gs1:" });
  });

  // The shared host's own rules: who may register a key there, and how (docs/gs1-resolver.md).
  if (!host.shared) return;

  it("refuses bad items with VALIDATION_FAILED and writes nothing", async () => {
    const gtin = newGtin();
    const wrong = `${gtin.slice(0, 13)}${(Number(gtin[13]) + 1) % 10}`;
    const cases: Array<[unknown, RegExp]> = [
      [{ value: wrong, links: [{ linkType: "gs1:pip", href: "https://example.com", title: "t", isDefault: true }] }, /wrong check digit/],
      [{ value: gtin, links: [{ linkType: "gs1:pip", href: "https://example.com", title: "t" }] }, /Exactly one link must have isDefault: true \(0 do\)/],
      [{ value: gtin, links: [{ linkType: "gs1:nope", href: "https://example.com", title: "t", isDefault: true }] }, /linkType/],
      [{ value: gtin, qualifiers: [{ ai: "21", value: "S" }, { ai: "10", value: "L" }], links: [{ linkType: "gs1:pip", href: "https://example.com", title: "t", isDefault: true }] }, /order/],
      [{ value: gtin, links: [{ linkType: "gs1:pip", href: "ftp://example.com", title: "t", isDefault: true }] }, /href/],
      // GS1's linkset schema allows no longer language tag in hreflang.
      [{ value: gtin, links: [{ linkType: "gs1:pip", href: "https://example.com", title: "t", hreflang: ["es-419"], isDefault: true }] }, /2-letter language, optionally with a 2-letter region/],
      [{ value: gtin, links: [{ linkType: "gs1:pip", href: "https://-shop.example.com/", title: "t", isDefault: true }] }, /cannot be served in a GS1 linkset/],
    ];
    for (const [body, reason] of cases) {
      const res = await putItem(merchant, body);
      const answer = (await res.json()) as any;
      assert.equal(res.status, 400, JSON.stringify(answer));
      assert.equal(answer.code, "VALIDATION_FAILED");
      assert.match(answer.message, reason);
    }
    assert.equal((await resolve(`/01/${gtin}`)).status, 404);
    const keys = await firestore().collection("gs1Keys").where("value", "==", gtin).get();
    assert.equal(keys.size, 0);
  });

  it("gives a key one owner: another workspace's claim is CONFLICT and it cannot read or delete the items", async () => {
    const claim = await putItem(other, { value: pasta, links: [{ linkType: "gs1:pip", href: "https://evil.example/pasta", title: "x", isDefault: true }] });
    assert.equal(claim.status, 409);
    assert.equal(((await claim.json()) as any).code, "CONFLICT");
    const viaTool = await callTool("svc.gs1.set_item", { value: pasta, qualifiers: [{ ai: "10", value: "X" }], links: [{ linkType: "gs1:pip", href: "https://evil.example", title: "x", isDefault: true }] }, other.apiKey);
    assert.match(JSON.stringify(viaTool.body), /CONFLICT/);
    assert.equal((await resolve(`/01/${pasta}`)).headers.get("location"), "https://example.com/pasta");

    const mine = await api(merchant, "/api/gs1/items?limit=100");
    assert.equal(mine.status, 200);
    const pastaItem = mine.body.items.find((i: any) => i.key.value === pasta);
    assert.ok(pastaItem);
    assert.equal((await api(other, `/api/gs1/items/${pastaItem.itemId}`)).status, 404);
    assert.equal((await api(other, `/api/gs1/items/${pastaItem.itemId}`, "DELETE")).status, 404);
    assert.deepEqual((await api(other, "/api/gs1/items")).body.items, []);
    const listed = toolResult(await callTool("svc.gs1.list_items", {}, other.apiKey));
    assert.deepEqual(listed.items, []);

    // The owner replaces links (200, not 201) and deletes; the resolver follows at once.
    const replaced = await putItem(merchant, { value: pasta, links: [{ linkType: "gs1:pip", href: "https://example.com/pasta-v2", title: "Pasta", isDefault: true }] });
    assert.equal(replaced.status, 200);
    assert.equal((await resolve(`/01/${pasta}`)).headers.get("location"), "https://example.com/pasta-v2");
    assert.equal((await api(merchant, `/api/gs1/items/${pastaItem.itemId}`, "DELETE")).status, 200);
    assert.equal((await resolve(`/01/${pasta}`)).status, 404);
  });

  it("attaches a menu code and a listing as links of the matching link type (REST and MCP), from the caller's workspace only", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "Lunch menu", destinationUrl: "https://example.com/menu", dynamic: true }, merchant.apiKey));
    const staticCode = toolResult(await callTool("svc.qr.create", { title: "Dinner menu", destinationUrl: "https://example.com/dinner", dynamic: false }, merchant.apiKey));
    const othersCode = toolResult(await callTool("svc.qr.create", { title: "Their menu", destinationUrl: "https://other.example/menu", dynamic: true }, other.apiKey));
    const domain = `gs1-${randomUUID().slice(0, 8)}.example.com`;
    const pending = `gs1-${randomUUID().slice(0, 8)}.example.com`;
    for (const d of [domain, pending]) {
      toolResult(await callTool("svc.voice_agent.register", { domain: d, businessName: "Bean There", voiceAgentPhone: "+14155550123", email: "owner@example.com" }, merchant.apiKey));
    }
    await approveListing(domain);

    const gtin = newGtin();
    const res = await putItem(merchant, {
      value: gtin,
      links: [
        { from: { menuCodeId: code.codeId }, isDefault: true, hreflang: ["en"] },
        { from: { listingId: domain.toUpperCase() } },
        { from: { menuCodeId: staticCode.codeId }, linkType: "gs1:promotion", title: "Tonight" },
      ],
    });
    const item = (await res.json()) as any;
    assert.equal(res.status, 201, JSON.stringify(item));
    assert.deepEqual(item.links, [
      { linkType: "gs1:menuInfo", href: code.dynamicLink, title: "Lunch menu", hreflang: ["en"], isDefault: true, from: { menuCodeId: code.codeId } },
      { linkType: "gs1:support", href: `${baseUrl()}/d/${domain}`, title: "Bean There", isDefault: false, from: { listingId: domain } },
      { linkType: "gs1:promotion", href: "https://example.com/dinner", title: "Tonight", isDefault: false, from: { menuCodeId: staticCode.codeId } },
    ]);
    // The resolver sends people to the code's scan URL (which follows the code) and to the listing's page.
    assert.equal((await resolve(`/01/${gtin}`)).headers.get("location"), code.dynamicLink);
    assert.equal((await resolve(`/01/${gtin}?linkType=gs1:support`)).headers.get("location"), `${baseUrl()}/d/${domain}`);
    const scan = await client.fetch(code.dynamicLink, { redirect: "manual" });
    assert.equal(scan.headers.get("location"), "https://example.com/menu");
    const linkset = (await (await resolve(`/01/${gtin}?linkType=linkset`)).json()) as any;
    assert.equal(linkset.linkset[0]["https://ref.gs1.org/voc/menuInfo"][0].href, code.dynamicLink);
    assert.ok(!JSON.stringify(linkset).includes("menuCodeId"), "the linkset does not show where a link came from");

    // MCP, same schema: a lot-level item from the listing.
    const lot = toolResult(await callTool("svc.gs1.set_item", { value: gtin, qualifiers: [{ ai: "10", value: "L1" }], links: [{ from: { listingId: domain }, isDefault: true }] }, merchant.apiKey));
    assert.deepEqual([lot.links[0].linkType, lot.links[0].href, lot.links[0].from], ["gs1:support", `${baseUrl()}/d/${domain}`, { listingId: domain }]);

    // Another workspace's code or listing, a pending listing, an unknown code: 400, nothing written.
    const fresh = newGtin();
    const refusals: Array<[TestMerchant, unknown, RegExp]> = [
      [other, { menuCodeId: code.codeId }, /links\.0\.from\.menuCodeId: No QR code .* in this workspace/],
      [other, { listingId: domain }, /links\.0\.from\.listingId: No phone-book listing for .* in this workspace/],
      [merchant, { menuCodeId: othersCode.codeId }, /No QR code .* in this workspace/],
      [merchant, { listingId: pending }, /is pending: it has no public page until it is approved/],
    ];
    for (const [who, from, message] of refusals) {
      const refused = await putItem(who, { value: fresh, links: [{ from, isDefault: true }] });
      const body = (await refused.json()) as any;
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(body.code, "VALIDATION_FAILED");
      assert.match(body.message, message);
    }
    const viaTool = await callTool("svc.gs1.set_item", { value: fresh, links: [{ from: { menuCodeId: code.codeId }, isDefault: true }] }, other.apiKey);
    assert.match(JSON.stringify(viaTool.body), /No QR code .* in this workspace/);
    const both = await putItem(merchant, { value: fresh, links: [{ from: { menuCodeId: code.codeId }, href: "https://example.com", isDefault: true }] });
    assert.equal(both.status, 400);
    assert.match(((await both.json()) as any).message, /links\.0\.from: Give href or from, not both/);
    assert.equal((await firestore().collection("gs1Keys").where("value", "==", fresh).get()).size, 0);
    assert.equal((await firestore().collection("gs1Items").where("value", "==", fresh).get()).size, 0);
    assert.equal((await resolve(`/01/${fresh}`)).status, 404);
  });

  it("lets an operator reassign a key after the company prefix check (admin CLI): one transaction, audited", async () => {
    // A GTIN-13 of a company: not a restricted circulation number (GS1 prefix 02, 04, 2x) nor a GTIN-8.
    const companyGtin = (): string => {
      const g = newGtin();
      return /^0[13-9]/.test(g) ? g : companyGtin();
    };
    const gtin = companyGtin();
    const prefix = gtin.slice(1, 8);
    const wrong = `${prefix.slice(0, 6)}${(Number(prefix[6]) + 1) % 10}`;
    for (const qualifiers of [[], [{ ai: "10", value: "OLD" }]]) {
      const res = await putItem(merchant, { value: gtin, qualifiers, links: [{ linkType: "gs1:pip", href: "https://example.com/old-owner", title: "Old", isDefault: true }] });
      assert.equal(res.status, 201);
    }
    const claim = () => putItem(other, { value: gtin, links: [{ linkType: "gs1:pip", href: "https://other.example/new-owner", title: "New", isDefault: true }] });
    assert.equal((await claim()).status, 409);
    const ownerOf = async () => (await firestore().collection("gs1Keys").where("value", "==", gtin).get()).docs.map((d) => d.get("merchantId"));
    const audits = async (merchantId: string) =>
      (await firestore().collection("auditEvents").where("merchantId", "==", merchantId).where("tool", "==", "admin.gs1_reassign").get()).docs.map((d) => d.data());

    // Refusals: a prefix the key does not begin with, no such workspace, a key nobody owns. Nothing written.
    const refused = await runAdminCli(["gs1-reassign", "--key", gtin, "--to", other.merchantId, "--company-prefix", wrong]);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, new RegExp(`GTIN ${gtin} does not begin with GS1 company prefix ${wrong} \\(its company prefix starts at digit 2, after the indicator digit\\)`));
    assert.match(refused.stderr, /Check the claimant's GS1 company prefix with GS1/);
    const noWorkspace = await runAdminCli(["gs1-reassign", "--key", gtin, "--to", `nobody-${randomUUID()}`, "--company-prefix", prefix]);
    assert.equal(noWorkspace.code, 1);
    assert.match(noWorkspace.stderr, /No workspace nobody-/);
    const unowned = companyGtin();
    const noOwner = await runAdminCli(["gs1-reassign", "--key", unowned, "--to", other.merchantId, "--company-prefix", unowned.slice(1, 8)]);
    assert.equal(noOwner.code, 1);
    assert.match(noOwner.stderr, new RegExp(`GTIN ${unowned} has no owner on .*: nothing to reassign`));
    const missing = await runAdminCli(["gs1-reassign", "--key", gtin, "--to", other.merchantId]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--company-prefix is required for gs1-reassign/);
    assert.deepEqual(await ownerOf(), [merchant.merchantId]);
    assert.equal((await resolve(`/01/${gtin}`)).headers.get("location"), "https://example.com/old-owner");
    assert.equal((await claim()).status, 409);
    assert.deepEqual(await audits(other.merchantId), []);

    // The reassignment: the owner changes, the old owner's items (both levels) go, both workspaces are audited.
    const done = await adminCli("gs1-reassign", "--key", `/01/${gtin}`, "--to", other.merchantId, "--company-prefix", prefix, "--reason", "GCP checked with GS1");
    assert.deepEqual([done.from, done.to, done.value, done.removed.map((i: any) => i.path).sort()], [merchant.merchantId, other.merchantId, gtin, [`/01/${gtin}`, `/01/${gtin}/10/OLD`]]);
    assert.deepEqual(await ownerOf(), [other.merchantId]);
    assert.equal((await resolve(`/01/${gtin}`)).status, 404, "the old owner's links are no longer served");
    for (const m of [merchant, other]) {
      const [event] = await audits(m.merchantId);
      assert.deepEqual([event?.uid, event?.authMethod, event?.details.from, event?.details.to, event?.details.itemsRemoved, event?.details.reason], ["admin-cli", "admin", merchant.merchantId, other.merchantId, 2, "GCP checked with GS1"]);
    }
    assert.ok(!(await api(merchant, "/api/gs1/items?limit=100")).body.items.some((i: any) => i.key.value === gtin));

    // The new owner sets the item; the old one is now the one refused; the resolver serves the new links.
    assert.equal((await claim()).status, 201);
    const old = await putItem(merchant, { value: gtin, links: [{ linkType: "gs1:pip", href: "https://example.com/old-owner", title: "Old", isDefault: true }] });
    assert.equal(old.status, 409);
    assert.equal((await resolve(`/01/${gtin}`)).headers.get("location"), "https://other.example/new-owner");
    assert.equal((await resolve(`/01/${gtin}/10/OLD`)).headers.get("location"), "https://other.example/new-owner");
    const again = await runAdminCli(["gs1-reassign", "--key", gtin, "--to", other.merchantId, "--company-prefix", prefix]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already belongs to/);
  });
});
}
