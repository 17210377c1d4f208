// svc.menu.list and svc.webhook.deliveries page by opaque cursor like svc.qr.list (issue 40, "every list
// tool takes limit and a cursor"): each item exactly once, newest first (createdAt, then id), pages stable
// while items are added, forged cursors refused with VALIDATION_FAILED, limit outside 1..100 refused.
// The menus and the delivery log are written straight into the emulator's Firestore (as the service's
// store writes them) in 2024, with many equal and sub-millisecond times so the tie-break and precision are tested.
import assert from "node:assert/strict";
import { Timestamp } from "firebase-admin/firestore";
import { callTool, toolResult } from "../helpers/rpc";
import { consoleAs } from "../helpers/consoleApi";
import { DELIVERIES_LISTED } from "../../functions/src/webhooks/service";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";

const T0 = Timestamp.fromMillis(Date.parse("2024-01-01T12:00:00.000Z"));
/** A time `ms` milliseconds and `us` microseconds after T0 (Firestore keeps microseconds). */
const at = (ms: number, us = 0) => new Timestamp(T0.seconds + Math.floor(ms / 1000), (ms % 1000) * 1_000_000 + us * 1000);
const micros = (t: Timestamp) => t.seconds * 1e6 + t.nanoseconds / 1000;
/** The documented order: createdAt newest first, then document id descending. */
const newestFirst = (a: { id: string; t: Timestamp }, b: { id: string; t: Timestamp }) => micros(b.t) - micros(a.t) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

async function writeAll(docs: Array<{ ref: FirebaseFirestore.DocumentReference; data: Record<string, unknown> }>) {
  for (let i = 0; i < docs.length; i += 400) {
    const batch = firestore().batch();
    for (const d of docs.slice(i, i + 400)) batch.create(d.ref, d.data);
    await batch.commit();
  }
}

/** Every page of a tool's list: the page sizes and the items in the order given. */
async function pageAll(merchant: TestMerchant, name: string, args: Record<string, unknown>, key: "menus" | "deliveries") {
  const sizes: number[] = [];
  const items: any[] = [];
  let cursor: string | undefined;
  do {
    const page = toolResult(await callTool(name, { ...args, ...(cursor ? { cursor } : {}) }, merchant.apiKey));
    assert.equal(page.count, page[key].length);
    sizes.push(page.count);
    items.push(...page[key]);
    cursor = page.nextCursor ?? undefined;
    if (sizes.length > 50) throw new Error("the cursor never ends");
  } while (cursor);
  return { sizes, items };
}

const forged = (parts: unknown) => Buffer.from(JSON.stringify(parts), "utf8").toString("base64url");

describe("MCP list cursors: menus and webhook deliveries", function () {
  this.timeout(180_000);
  let merchant: TestMerchant;
  let webhookId: string;
  let otherWebhookId: string;
  const menus: Array<{ id: string; t: Timestamp }> = [];
  const deliveries: Array<{ id: string; t: Timestamp }> = [];

  before(async () => {
    merchant = await createMerchant();
    const workspace = firestore().collection("workspaces").doc(merchant.merchantId);

    // 120 menus over 30 distinct times: groups of 4 share a time, every other group half a millisecond on.
    const menuDocs = Array.from({ length: 120 }, (_, i) => {
      const ref = workspace.collection("menus").doc();
      const t = at(Math.floor(i / 8), (Math.floor(i / 4) % 2) * 500);
      menus.push({ id: ref.id, t });
      return { ref, data: { menuId: ref.id, name: `Menu ${i}`, description: null, locationId: null, sections: [], status: "draft", createdAt: t, updatedAt: t } };
    });
    await writeAll(menuDocs);

    const hook = toolResult(await callTool("svc.webhook.create", { url: "http://127.0.0.1:9/hook", events: ["code.published"] }, merchant.apiKey));
    webhookId = hook.webhookId;
    otherWebhookId = toolResult(await callTool("svc.webhook.create", { url: "http://127.0.0.1:9/other", events: ["code.published"] }, merchant.apiKey)).webhookId;

    // 130 logged deliveries, 5 per distinct time, one attempt each.
    const deliveryDocs = Array.from({ length: 130 }, (_, i) => {
      const id = `msg_${String(i).padStart(4, "0")}${Math.random().toString(36).slice(2, 14).padEnd(12, "x")}`;
      const ref = workspace.collection("webhooks").doc(webhookId).collection("deliveries").doc(id);
      const t = at(Math.floor(i / 5) * 1000, i % 3);
      deliveries.push({ id, t });
      return {
        ref,
        data: {
          type: "code.published",
          count: 1,
          body: "{}",
          status: "succeeded",
          attempts: [{ at: t, attempt: 1, ok: true, responseCode: 204, latencyMs: 12, detail: "" }],
          createdAt: t,
          expiresAt: Timestamp.fromMillis(Date.now() + 30 * 86_400_000),
        },
      };
    });
    await writeAll(deliveryDocs);
  });

  it("svc.menu.list pages 120 menus as 50, 50 and 20, newest first then by id, each once", async () => {
    const { sizes, items } = await pageAll(merchant, "svc.menu.list", { limit: 50 }, "menus");
    assert.deepEqual(sizes, [50, 50, 20]);
    assert.deepEqual(
      items.map((m) => m.menuId),
      [...menus].sort(newestFirst).map((m) => m.id),
      "the documented order, every menu exactly once",
    );
    const first = toolResult(await callTool("svc.menu.list", {}, merchant.apiKey));
    assert.equal(first.count, 20, "default page size");
    assert.equal(typeof first.nextCursor, "string");
  });

  it("keeps its pages while menus are added: a new menu is not on later pages, none is skipped or repeated", async () => {
    const one = toolResult(await callTool("svc.menu.list", { limit: 30 }, merchant.apiKey));
    const added = toolResult(await callTool("svc.menu.create", { name: "Added while paging" }, merchant.apiKey));
    const seen = one.menus.map((m: any) => m.menuId);
    let cursor = one.nextCursor;
    while (cursor) {
      const page = toolResult(await callTool("svc.menu.list", { limit: 30, cursor }, merchant.apiKey));
      seen.push(...page.menus.map((m: any) => m.menuId));
      cursor = page.nextCursor;
    }
    assert.deepEqual(seen, [...menus].sort(newestFirst).map((m) => m.id));
    const fresh = toolResult(await callTool("svc.menu.list", { limit: 1 }, merchant.apiKey));
    assert.equal(fresh.menus[0].menuId, added.menuId, "the new menu heads a fresh first page");
  });

  it("svc.webhook.deliveries pages 130 logged deliveries as 40, 40, 40 and 10, newest first then by id, each once", async () => {
    // 40 of these deliveries stay within the result bound (about 47 would).
    const { sizes, items } = await pageAll(merchant, "svc.webhook.deliveries", { webhookId, limit: 40 }, "deliveries");
    assert.deepEqual(sizes, [40, 40, 40, 10]);
    assert.deepEqual(
      items.map((d) => d.deliveryId),
      [...deliveries].sort(newestFirst).map((d) => d.id),
    );
    const first = toolResult(await callTool("svc.webhook.deliveries", { webhookId }, merchant.apiKey));
    assert.equal(first.count, 20, "the tool's default page size stays 20");
    assert.equal(typeof first.nextCursor, "string");
    const one = toolResult(await callTool("svc.webhook.deliveries", { webhookId, deliveryId: items[0].deliveryId }, merchant.apiKey));
    assert.equal(one.count, 1);
    assert.equal(one.nextCursor, null);
    assert.equal(one.deliveries[0].attemptLog.length, 1);
  });

  it("the console's delivery list and svc.webhook.deliveries share one default page size", async () => {
    const log = await consoleAs(merchant.idToken).get(`/webhooks/${webhookId}/deliveries`);
    assert.equal(log.status, 200, log.text);
    assert.ok(deliveries.length > DELIVERIES_LISTED, "more deliveries than one default page");
    assert.deepEqual(
      log.body.deliveries.map((d: any) => d.deliveryId),
      [...deliveries].sort(newestFirst).slice(0, DELIVERIES_LISTED).map((d) => d.id),
    );
    // The tool may stop short of its page to keep the result within its byte budget, and then says so.
    const viaTool = toolResult(await callTool("svc.webhook.deliveries", { webhookId }, merchant.apiKey));
    const listed = viaTool.deliveries.map((d: any) => d.deliveryId);
    assert.deepEqual(listed, log.body.deliveries.slice(0, listed.length).map((d: any) => d.deliveryId));
    assert.equal(listed.length === DELIVERIES_LISTED, !viaTool.truncated, `${listed.length} listed, truncated: ${viaTool.truncated}`);
  });

  it("refuses a cursor that is not the list's own with VALIDATION_FAILED, never a 5xx", async () => {
    const menuCursor = toolResult(await callTool("svc.menu.list", { limit: 5 }, merchant.apiKey)).nextCursor;
    const deliveryCursor = toolResult(await callTool("svc.webhook.deliveries", { webhookId, limit: 5 }, merchant.apiKey)).nextCursor;
    const bad = [
      "not-a-cursor",
      "x".repeat(513),
      forged(["menus", "desc", "yesterday", "abc"]),
      forged(["menus", "asc", 1, "abc"]),
      forged(["menus", "desc", 1e30, "abc"]),
      forged(["menus", "desc", 1, "../other"]),
      forged({ menus: 1 }),
    ];
    const attempts: Array<[string, Record<string, unknown>]> = [
      ...bad.map((cursor): [string, Record<string, unknown>] => ["svc.menu.list", { cursor }]),
      ...bad.map((cursor): [string, Record<string, unknown>] => ["svc.webhook.deliveries", { webhookId, cursor }]),
      ["svc.menu.list", { cursor: deliveryCursor }],
      ["svc.webhook.deliveries", { webhookId, cursor: menuCursor }],
      ["svc.webhook.deliveries", { webhookId: otherWebhookId, cursor: deliveryCursor }],
    ];
    for (const [name, args] of attempts) {
      const res = await callTool(name, args, merchant.apiKey);
      assert.ok(res.status < 500, `${name} ${JSON.stringify(args)}: ${res.status} ${res.text}`);
      assert.equal(res.body.error?.code, -32602, `${name} ${JSON.stringify(args)}: ${res.text}`);
      assert.equal(res.body.error?.data?.code, "VALIDATION_FAILED", `${name} ${JSON.stringify(args)}: ${res.text}`);
    }
  });

  it("refuses limit 0 and 101 with -32602", async () => {
    for (const limit of [0, 101]) {
      for (const [name, args] of [
        ["svc.menu.list", { limit }],
        ["svc.webhook.deliveries", { webhookId, limit }],
      ] as const) {
        const res = await callTool(name, args, merchant.apiKey);
        assert.ok(res.status < 500, res.text);
        assert.equal(res.body.error?.code, -32602, `${name} limit ${limit}: ${res.text}`);
      }
    }
  });
});
