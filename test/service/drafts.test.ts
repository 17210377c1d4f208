import assert from "node:assert/strict";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, mintKey, type TestMerchant } from "../helpers/merchants";
import { consoleApi } from "../helpers/consoleApi";
import { AppError } from "../../functions/src/core/errors";
import { addMenuItem, draftChallenge } from "../../functions/src/menus/drafts";
import { listDrafts } from "../../functions/src/store/drafts";

function assertInvalid(res: any, field: string) {
  assert.equal(res.body.error?.code, -32602, JSON.stringify(res.body));
  assert.ok(res.body.error.data.issues.some((i: any) => i.path === field), `${field}: ${JSON.stringify(res.body.error.data.issues)}`);
}

describe("drafts: audio codes, menus and challenges", function () {
  this.timeout(60_000);
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("svc.audio.create drafts an audio code", async () => {
    const audio = toolResult(await callTool("svc.audio.create", { title: "Jingle", payloadText: "https://example.com/deal", campaign: "spring" }, merchant.apiKey));
    assert.match(audio.audioCodeId, /^[A-Za-z0-9]{20}$/);
    assert.equal(audio.status, "draft");
    assert.equal(audio.payloadKind, "url");
    assert.equal(audio.campaign, "spring");
    const textPayload = toolResult(await callTool("svc.audio.create", { title: "Hi", payloadText: "Welcome in!" }, merchant.apiKey));
    assert.equal(textPayload.payloadKind, "text");
    assert.equal(textPayload.campaign, null);
    assertInvalid(await callTool("svc.audio.create", { title: "x" }, merchant.apiKey), "payloadText");
    assertInvalid(await callTool("svc.audio.create", { title: "x", payloadText: "p".repeat(2001) }, merchant.apiKey), "payloadText");
    assertInvalid(await callTool("svc.audio.create", { title: "", payloadText: "p" }, merchant.apiKey), "title");
  });

  it("menus: create, add items in order, sections created on first use, list newest first", async () => {
    const m = await createMerchant();
    const menu = toolResult(await callTool("svc.menu.create", { name: "Lunch", description: "Noon to 3", locationId: "loc-1" }, m.apiKey));
    assert.equal(menu.status, "draft");
    assert.deepEqual(menu.sections, []);
    const first = toolResult(await callTool("svc.menu.add_item", { menuId: menu.menuId, sectionName: "Mains", name: "Soup", price: 7.5 }, m.apiKey));
    assert.equal(first.sectionCreated, true);
    assert.equal(first.position, 1);
    const second = toolResult(await callTool("svc.menu.add_item", { menuId: menu.menuId, sectionName: "mains", name: "Salad", description: "Green", price: 0 }, m.apiKey));
    assert.equal(second.sectionCreated, false, "section names match case-insensitively");
    assert.equal(second.position, 2);
    toolResult(await callTool("svc.menu.add_item", { menuId: menu.menuId, sectionName: "Drinks", name: "Tea" }, m.apiKey));
    const later = toolResult(await callTool("svc.menu.create", { name: "Dinner" }, m.apiKey));
    const list = toolResult(await callTool("svc.menu.list", {}, m.apiKey));
    assert.deepEqual(list.menus.map((x: any) => x.name), ["Dinner", "Lunch"]);
    const lunch = list.menus[1];
    assert.deepEqual(lunch.sections.map((s: any) => s.name), ["Mains", "Drinks"]);
    assert.deepEqual(lunch.sections[0].items.map((i: any) => [i.name, i.price]), [["Soup", 7.5], ["Salad", 0]]);
    assert.equal(lunch.sections[1].items[0].price, null);
    assert.equal(lunch.itemCount, 3);
    assert.equal(toolResult(await callTool("svc.menu.list", { limit: 1 }, m.apiKey)).menus[0].menuId, later.menuId);
  });

  it("validates menu input: price, lengths, limit", async () => {
    const menu = toolResult(await callTool("svc.menu.create", { name: "Validation" }, merchant.apiKey));
    const add = (args: Record<string, unknown>) => callTool("svc.menu.add_item", { menuId: menu.menuId, sectionName: "S", name: "N", ...args }, merchant.apiKey);
    for (const price of [-1, 1.234, Number.MAX_SAFE_INTEGER, "5"]) assertInvalid(await add({ price }), "price");
    assert.equal(toolResult(await add({ price: 19.99 })).item.price, 19.99);
    assertInvalid(await add({ name: "n".repeat(101) }), "name");
    assertInvalid(await add({ sectionName: "" }), "sectionName");
    assertInvalid(await callTool("svc.menu.create", { name: "m".repeat(101) }, merchant.apiKey), "name");
    assertInvalid(await callTool("svc.menu.list", { limit: 0 }, merchant.apiKey), "limit");
    assertInvalid(await callTool("svc.menu.list", { limit: 101 }, merchant.apiKey), "limit");
    const unknown = await callTool("svc.menu.add_item", { menuId: "nope", sectionName: "S", name: "N" }, merchant.apiKey);
    assert.equal(unknown.body.error.data.code, "NOT_FOUND");
  });

  it("no merchant can read or add to another merchant's menu", async () => {
    const a = await createMerchant();
    const b = await createMerchant();
    const menu = toolResult(await callTool("svc.menu.create", { name: "Secret" }, a.apiKey));
    const attempt = await callTool("svc.menu.add_item", { menuId: menu.menuId, sectionName: "S", name: "Injected" }, b.apiKey);
    assert.equal(attempt.body.error.data.code, "NOT_FOUND");
    assert.equal(toolResult(await callTool("svc.menu.list", {}, b.apiKey)).count, 0);
    const own = toolResult(await callTool("svc.menu.list", {}, a.apiKey));
    assert.equal(own.menus[0].itemCount, 0);
  });

  it("svc.challenge.create validates type and dates", async () => {
    const challenge = toolResult(
      await callTool(
        "svc.challenge.create",
        { name: "Coffee streak", challengeType: "streak", rewardText: "Free latte", startsAt: "2026-12-01", endsAt: "2026-12-31T23:59:59Z" },
        merchant.apiKey,
      ),
    );
    assert.equal(challenge.status, "draft");
    assert.equal(challenge.startsAt, "2026-12-01T00:00:00.000Z");
    assert.equal(challenge.endsAt, "2026-12-31T23:59:59.000Z");
    const c = (args: Record<string, unknown>) => callTool("svc.challenge.create", { name: "c", challengeType: "game", ...args }, merchant.apiKey);
    assertInvalid(await c({ challengeType: "lottery" }), "challengeType");
    assertInvalid(await c({ startsAt: "next tuesday" }), "startsAt");
    assertInvalid(await c({ startsAt: "2026-02-30" }), "startsAt");
    assertInvalid(await c({ startsAt: "2026-12-31", endsAt: "2026-12-01" }), "endsAt");
    assertInvalid(await c({ startsAt: "2026-12-01", endsAt: "2026-12-01" }), "endsAt");
    assertInvalid(await c({ rewardText: "r".repeat(301) }), "rewardText");
  });

  it("each draft tool needs its scope", async () => {
    const readOnly = await mintKey(merchant, ["merchant:read"]);
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["svc.audio.create", { title: "t", payloadText: "p" }, "audio:write"],
      ["svc.menu.create", { name: "n" }, "menu:write"],
      ["svc.challenge.create", { name: "n", challengeType: "streak" }, "challenge:write"],
    ];
    for (const [tool, args, scope] of cases) {
      const res = await callTool(tool, args, readOnly);
      assert.equal(res.body.error.data.code, "INSUFFICIENT_SCOPE", tool);
      assert.equal(res.body.error.data.requiredScope, scope);
    }
    const menuOnly = await mintKey(merchant, ["menu:write"]);
    assert.equal((await callTool("svc.menu.list", {}, menuOnly)).body.error.data.code, "INSUFFICIENT_SCOPE");
  });

  it("the domain actions hold their rules for every caller, and stored drafts read back as typed records", async () => {
    const m = await createMerchant();
    const challenges = () => firestore().collection("workspaces").doc(m.merchantId).collection("challenges").get();
    // The tool's schema refuses this first; the domain function refuses it too, for any other surface.
    await assert.rejects(
      draftChallenge(m.merchantId, { name: "Backwards", challengeType: "streak", startsAt: "2026-12-02T00:00:00Z", endsAt: "2026-12-01T00:00:00Z" }),
      (e: unknown) => e instanceof AppError && e.code === "VALIDATION_FAILED" && /endsAt must be after startsAt/.test(e.message),
    );
    assert.equal((await challenges()).size, 0, "a refused draft writes nothing");
    const made = await draftChallenge(m.merchantId, { name: "Week", challengeType: "streak", startsAt: "2026-12-01T00:00:00+01:00" });
    assert.equal(made.startsAt, "2026-11-30T23:00:00.000Z", "instants are normalised to UTC");
    // A document written before a field existed (no rewardText, no endsAt) reads with nulls, not undefined.
    await firestore().collection("workspaces").doc(m.merchantId).collection("challenges").doc("old").set({ name: "Old", challengeType: "game", status: "published", createdAt: new Date(0), updatedAt: new Date(0) });
    const listed = await listDrafts(m.merchantId, "challenges", 10);
    assert.deepEqual(listed.map((c) => [c.challengeId, c.rewardText, c.endsAt, c.status, c.createdAt instanceof Date]), [
      [made.challengeId, null, null, "draft", true],
      ["old", null, null, "published", true],
    ]);
    // A change keeps what the record does not model (a newer release's field) and the publication.
    const menus = firestore().collection("workspaces").doc(m.merchantId).collection("menus");
    await menus.doc("legacy").set({ name: "Old menu", sections: [], status: "published", publishedAt: new Date(1000), publishedBy: "u1", fromNewerRelease: 7, createdAt: new Date(0), updatedAt: new Date(0) });
    const added = await addMenuItem(m.merchantId, { menuId: "legacy", sectionName: "Drinks", name: "Tea", price: 2 });
    assert.equal(added.position, 1);
    const stored = (await menus.doc("legacy").get()).data()!;
    assert.deepEqual([stored.fromNewerRelease, stored.publishedBy, stored.publishedAt.toMillis(), stored.sections[0].items[0].name], [7, "u1", 1000, "Tea"]);
  });

  it("the console lists each kind as its tool answers it, with when and by whom it was published", async () => {
    const m = await createMerchant();
    const made = {
      audioCodes: toolResult(await callTool("svc.audio.create", { title: "Chime", payloadText: "Welcome" }, m.apiKey)),
      menus: toolResult(await callTool("svc.menu.create", { name: "Lunch" }, m.apiKey)),
      challenges: toolResult(await callTool("svc.challenge.create", { name: "Five visits", challengeType: "scan_count", endsAt: "2026-12-31" }, m.apiKey)),
    };
    const { item } = toolResult(await callTool("svc.menu.add_item", { menuId: made.menus.menuId, sectionName: "Mains", name: "Soup", price: 7.5 }, m.apiKey));
    const published = await consoleApi("/publish", m.idToken, { body: { kind: "menus", id: made.menus.menuId } });
    assert.equal(published.status, 200);
    for (const [kind, tool] of Object.entries(made)) {
      const res = await consoleApi(`/drafts/${kind}`, m.idToken);
      assert.equal(res.status, 200, res.text);
      const { consoleUrl: _consoleUrl, ...answered } = tool;
      const expected = kind === "menus"
        ? { ...answered, sections: [{ name: "Mains", items: [item] }], itemCount: 1, status: "published", updatedAt: published.body.publishedAt, publishedAt: published.body.publishedAt, publishedBy: m.uid }
        : { ...answered, publishedAt: null, publishedBy: null };
      assert.deepEqual(res.body, { items: [expected] }, kind);
    }
    assert.equal((await consoleApi("/drafts/codes", m.idToken)).status, 404, "codes have their own list");
  });
});
