import assert from "node:assert/strict";
import { appUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { decodePng, decodeSvg, fetchPng, isVectorOnly } from "../helpers/qr";

async function create(merchant: TestMerchant, args: Record<string, unknown>) {
  return toolResult(await callTool("svc.qr.create", args, merchant.apiKey));
}

async function fetchSvg(url: string): Promise<string> {
  const res = await fetch(url);
  assert.equal(res.status, 200, `GET ${url}`);
  assert.equal(res.headers.get("content-type"), "image/svg+xml; charset=utf-8");
  return res.text();
}

describe("QR SVG files (qrSvgUrl)", function () {
  this.timeout(60_000);
  let merchant: TestMerchant;
  before(async () => {
    merchant = await createMerchant();
  });

  it("every code carries a stable qrSvgUrl whose vector file decodes like its PNG", async () => {
    const plain = await create(merchant, { title: "svg plain", destinationUrl: "https://example.com/svg?a=1" });
    const framed = await create(merchant, { title: "svg boost", destinationUrl: "https://example.com/boost", boostFrame: "svc_x5_gold" });
    const sealed = await create(merchant, { title: "svg seal", destinationUrl: "https://example.com/seal", template: "soundSeal" });
    for (const code of [plain, framed, sealed]) {
      assert.ok(code.qrSvgUrl.startsWith(`${appUrl()}/img/svg/`), code.qrSvgUrl);
      const svg = await fetchSvg(code.qrSvgUrl);
      assert.ok(isVectorOnly(svg), "no embedded bitmap");
      const expected = code.dynamic ? code.dynamicLink : code.destinationUrl;
      assert.equal((await decodeSvg(svg)).payload, expected);
      assert.equal(decodePng(await fetchPng(code.qrImageUrl)).payload, expected);
    }
    const listed = toolResult(await callTool("svc.qr.list", {}, merchant.apiKey));
    assert.equal(listed.codes.find((c: any) => c.codeId === plain.codeId).qrSvgUrl, plain.qrSvgUrl);
  });

  it("a static code's SVG follows a new destination at the same URL", async () => {
    const code = await create(merchant, { title: "svg static", destinationUrl: "https://example.com/before" });
    const updated = toolResult(await callTool("svc.qr.update", { codeId: code.codeId, destinationUrl: "https://example.com/after" }, merchant.apiKey));
    assert.equal(updated.qrSvgUrl, code.qrSvgUrl);
    assert.equal((await decodeSvg(await fetchSvg(code.qrSvgUrl))).payload, "https://example.com/after");
  });

  it("refuses a wrong token and unknown codes", async () => {
    const code = await create(merchant, { title: "svg token", destinationUrl: "https://example.com/t" });
    const wrong = code.qrSvgUrl.replace(/token=.*/, "token=00000000-0000-0000-0000-000000000000");
    assert.equal((await fetch(wrong)).status, 403);
    assert.equal((await fetch(code.qrSvgUrl.replace(code.codeId, "nope"))).status, 404);
    assert.equal((await fetch(code.qrSvgUrl.replace(".svg?", "?"))).status, 400, "not a <codeId>.svg name: refused at the edge");
  });
});
