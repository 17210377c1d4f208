// A workspace past what the old code directory could hold. The directory kept every code's title, URL,
// campaign and tags in 16 documents of at most 1 MiB: codes whose text fields are long CJK (about 3.9 KB
// of UTF-8 each) filled it at about 3,950 codes, and creation then failed with INTERNAL. Here 4,500 such
// codes are seeded through the store layer (as the service writes them), then the service is used as a
// person and an agent would, through the local front end: it still creates, re-points, lists, searches
// and exports (a print package of a selection).
import assert from "node:assert/strict";
import { callTool, toolResult } from "../../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../../helpers/merchants";
import { consoleApi } from "../../helpers/consoleApi";
import { eventually } from "../../helpers/poll";
import { decodeSvg } from "../../helpers/qr";
import { readZip } from "../../helpers/zip";
import { appUrl } from "../../helpers/env";
import { db } from "../../../functions/src/core/firebase";
import { addNewCodes } from "../../../functions/src/store/codes";
import { CAMPAIGN_MAX, TAG_MAX, TAGS_MAX, TITLE_MAX } from "../../../functions/src/core/limits";
import type { QrCode } from "../../../functions/src/codes/model";
import { atFullScale, scaled } from "../../helpers/scale";

// 4,500 at full size (TEST_SCALE=1): more text than the old directory could hold. Scaled (at least 450),
// the list still has many pages and the searches still scan every code; only the capacity claim needs full size.
const SEEDED = scaled(4_500, 450);
/** Long CJK text of `length` characters (3 bytes each in UTF-8), different for each `seed`. */
const cjk = (length: number, seed: number) => Array.from({ length }, (_, i) => String.fromCodePoint(0x4e00 + ((seed * 7919 + i * 31) % 20_000))).join("");

function seededCode(merchantId: string, i: number, now: number): QrCode {
  const codeId = `cjk${String(i).padStart(6, "0")}`;
  return {
    codeId,
    merchantId,
    uniqueQRCodeID: `c${merchantId.slice(-6)}${i.toString(36)}`,
    title: cjk(TITLE_MAX, i),
    destinationUrl: `https://shop.example/${i}`,
    campaign: cjk(CAMPAIGN_MAX, i % 50),
    tags: Array.from({ length: TAGS_MAX }, (_, t) => cjk(TAG_MAX, i * TAGS_MAX + t)),
    dynamic: false,
    dynamicLink: null,
    template: null,
    scanBeepSound: null,
    boostFrame: null,
    design: null,
    qrImageUrl: `${appUrl()}/img/none.png`,
    imagePath: `codes/${merchantId}/${codeId}.png`,
    imageToken: "t",
    status: "draft",
    source: "bulk",
    createdAt: new Date(now - 86_400_000 + i),
    updatedAt: new Date(now - 86_400_000 + i),
  } as QrCode;
}

describe("a workspace past the old code directory's capacity", function () {
  this.timeout(600_000);
  let m: TestMerchant;

  before(async () => {
    m = await createMerchant();
    const now = Date.now();
    for (let start = 0; start < SEEDED; start += 250) {
      const batch = db().batch();
      addNewCodes(batch, m.merchantId, Array.from({ length: Math.min(250, SEEDED - start) }, (_, k) => seededCode(m.merchantId, start + k, now)));
      await batch.commit();
    }
  });
  after(async () => {
    await firestore().recursiveDelete(firestore().collection("workspaces").doc(m.merchantId));
  });

  it(`creates, re-points, lists, searches and exports among ${SEEDED} codes of long CJK text`, async () => {
    const seededBytes = Buffer.byteLength(seededCode(m.merchantId, 0, 0).title + seededCode(m.merchantId, 0, 0).campaign + seededCode(m.merchantId, 0, 0).tags!.join(""));
    if (atFullScale) assert.ok(seededBytes * SEEDED > 16 * 1024 * 1024, `the seeded text (${seededBytes} bytes a code) is more than 16 directory documents of 1 MiB could hold`);

    // Creates: an agent's code with the longest CJK fields there are.
    const title = `新店舗 ${cjk(TITLE_MAX - 4, 99_999)}`;
    const created = toolResult(
      await callTool("svc.qr.create", { title, destinationUrl: "https://shop.example/new-store", dynamic: true, campaign: cjk(CAMPAIGN_MAX, 7), tags: [cjk(TAG_MAX, 1), "開店"] }, m.apiKey),
    );
    assert.ok(created.codeId, JSON.stringify(created));

    // Re-points it.
    const moved = toolResult(await callTool("svc.qr.update", { codeId: created.codeId, destinationUrl: "https://shop.example/new-store/opening" }, m.apiKey));
    assert.equal(moved.destinationUrl, "https://shop.example/new-store/opening");

    // Lists: newest first, with the total from the counters.
    const first = await consoleApi("/codes?limit=50", m.idToken);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.total, SEEDED + 1);
    assert.equal(first.body.codes.length, 50);
    assert.equal(first.body.codes[0].codeId, created.codeId);
    assert.equal(first.body.codes[0].destinationUrl, "https://shop.example/new-store/opening");
    const second = await consoleApi(`/codes?limit=50&cursor=${encodeURIComponent(first.body.nextCursor)}`, m.idToken);
    assert.equal(second.body.codes.length, 50);
    assert.ok(!second.body.codes.some((c: any) => first.body.codes.some((f: any) => f.codeId === c.codeId)), "no code on both pages");

    // Searches: by a word prefix of the title, and by a tag.
    for (const q of ["新店", "開店"]) {
      const found = await consoleApi(`/codes?q=${encodeURIComponent(q)}`, m.idToken);
      assert.equal(found.status, 200, JSON.stringify(found.body));
      assert.ok(found.body.codes.some((c: any) => c.codeId === created.codeId), `found by ${q}`);
    }

    // Exports: a print package of the new code and two seeded ones.
    const job = await fetch(`${appUrl()}/api/jobs`, {
      method: "POST",
      headers: { Authorization: `Bearer ${m.apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ format: "codes", codeIds: [created.codeId, "cjk000000", `cjk${String(SEEDED - 1).padStart(6, "0")}`], print: { sideMm: 30 } }),
    });
    assert.equal(job.status, 202);
    const { jobId } = (await job.json()) as { jobId: string };
    const done = await eventually(
      async () => (await (await fetch(`${appUrl()}/api/jobs/${jobId}`, { headers: { Authorization: `Bearer ${m.apiKey}` } })).json()) as any,
      (j) => j.state === "done" || j.state === "failed",
      { timeoutMs: 120_000, intervalMs: 500, what: "the package" },
    );
    assert.deepEqual([done.state, done.reused, done.failed], ["done", 3, 0], JSON.stringify(done));
    const zip = readZip(Buffer.from(await (await fetch(done.packageUrl)).arrayBuffer()));
    const manifest = zip.get("manifest.csv")!.toString("utf8").replace(/^\ufeff/, "").trim().split("\r\n").slice(1);
    assert.equal(manifest.length, 3);
    assert.ok(manifest[0].includes(title), "the manifest keeps the CJK title whole");
    for (const line of manifest) {
      const codeId = line.split(",")[0];
      assert.match(line, /,true,true,/);
      assert.ok((await decodeSvg(zip.get(`${codeId}.svg`)!)).payload?.startsWith("http"), `${codeId}.svg decodes`);
    }
    const scanUrl = manifest[0].split(",")[2];
    assert.equal((await decodeSvg(zip.get(`${created.codeId}.svg`)!)).payload, scanUrl);
  });
});
