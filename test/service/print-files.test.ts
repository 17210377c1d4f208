import assert from "node:assert/strict";
import { writeArtifact } from "../helpers/artifacts";
import { appUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, mintKey, signUp, type TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { nextWindowStart, servedAt } from "../helpers/clock";
import { RATE_LIMITS } from "../../functions/src/core/rateLimit";
import { decodePng, fetchPng } from "../helpers/qr";
import { hasColour, merchantWithLogo, noiseLogo } from "../helpers/designs";
import { renderPdfPage, ptToMm } from "../helpers/pdf";

const BRAND = { foreground: "#7C2D12", background: "#FFF7ED" };

async function fetchPdf(url: string) {
  const res = await fetch(url);
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get("content-type"), sideMm: Number(res.headers.get("x-print-side-mm")), body };
}

/** Renders a PDF's page with poppler, as a printer would, and decodes the rendering. */
async function decodePdf(pdf: Buffer, name: string) {
  const page = await renderPdfPage(pdf, 900);
  writeArtifact(`${name}.png`, page.png);
  return { page, payload: decodePng(page.png).payload };
}

describe("print files and brand tools", function () {
  this.timeout(120_000);
  const setup = merchantWithLogo();
  let merchant: TestMerchant;
  let logo: string;
  before(() => ({ merchant, logo } = setup));

  it("qrPdfUrl: a PDF at the chosen millimetre size, vector modules in the brand colours, logo kept, that decodes", async () => {
    const code = toolResult(
      await callTool("svc.qr.create", { title: "Print me", destinationUrl: "https://example.com/print", design: { ...BRAND, logo: { data: logo, mediaType: "image/png" }, moduleStyle: "dots", eyeStyle: "rounded" } }, merchant.apiKey),
    );
    assert.ok(code.qrPdfUrl.startsWith(`${appUrl()}/img/pdf/${merchant.merchantId}/${code.codeId}.pdf?token=`), code.qrPdfUrl);
    const listed = toolResult(await callTool("svc.qr.list", {}, merchant.apiKey));
    assert.equal(listed.codes.find((c: any) => c.codeId === code.codeId).qrPdfUrl, code.qrPdfUrl, "stable across answers");

    const sized = await fetchPdf(`${code.qrPdfUrl}&size=75`);
    assert.equal(sized.status, 200);
    assert.equal(sized.type, "application/pdf");
    const { page, payload } = await decodePdf(sized.body, "print-pdf-logo-75mm");
    assert.equal(Math.round(ptToMm(page.widthPt)), 75);
    assert.equal(payload, "https://example.com/print");
    assert.ok(await hasColour(page.png, BRAND.foreground), "modules in the brand colour");
    assert.equal(page.images.length, 1, "the logo, and nothing else, is an image: the modules are vector");
    assert.deepEqual([page.images[0].width, page.images[0].height], [code.design.logo.width, code.design.logo.height]);

    const hint = (await (await fetch(code.qrPdfUrl.replace("/img/pdf/", "/img/print-hint/").replace(".pdf?", ".json?") + "&distance=3")).json()) as any;
    assert.equal(hint.distanceM, 3);
    assert.equal(hint.moduleMm, 12, "3 m / 250");
    assert.ok(hint.symbolMm >= 300, "at least distance / 10");
    assert.match(hint.rule, /distance \/ 10/);
    const far = await fetchPdf(`${code.qrPdfUrl}&distance=3`);
    assert.equal(far.sideMm, hint.sideMm, "distance gives the hint's size");
    assert.equal(Math.round(ptToMm((await renderPdfPage(far.body, 100)).widthPt)), hint.sideMm);
    const plainDefault = await fetchPdf(code.qrPdfUrl);
    assert.ok(plainDefault.sideMm > 0 && plainDefault.sideMm < hint.sideMm, "the default is the size for 1 m");
  });

  it("PDF of framed and plain codes decode; bad tokens, sizes and mixed options are refused without a 5xx", async () => {
    const framed = toolResult(await callTool("svc.qr.create", { title: "framed", destinationUrl: "https://example.com/framed", template: "hexSeal", dynamic: true }, merchant.apiKey));
    const { page, payload } = await decodePdf((await fetchPdf(`${framed.qrPdfUrl}&size=100`)).body, "print-pdf-hexseal-100mm");
    assert.equal(payload, framed.dynamicLink);
    assert.equal(page.images.length, 1, "the frame's artwork");
    const plain = toolResult(await callTool("svc.qr.create", { title: "plain", destinationUrl: "https://example.com/plain" }, merchant.apiKey));
    assert.equal((await decodePdf((await fetchPdf(`${plain.qrPdfUrl}&size=30`)).body, "print-pdf-plain-30mm")).payload, "https://example.com/plain");

    const wrong = plain.qrPdfUrl.replace(/token=.*/, "token=00000000-0000-0000-0000-000000000000");
    assert.equal((await fetch(wrong)).status, 403);
    // A fraction of a millimetre is redirected to the whole size (a cache holds one file per size), never refused.
    const fraction = await fetch(`${plain.qrPdfUrl}&size=30.4`, { redirect: "manual" });
    assert.equal(fraction.status, 308);
    assert.match(fraction.headers.get("location") ?? "", /^\/img\/pdf\/.+\.pdf\?token=[^&]+&size=30$/);
    assert.equal((await fetchPdf(`${plain.qrPdfUrl}&size=30.4`)).sideMm, 30, "followed, it is the 30 mm file");
    for (const query of ["&size=5", "&size=3000", "&size=abc", "&distance=0", "&size=50&distance=2", "&other=1"]) {
      const res = await fetch(`${plain.qrPdfUrl}${query}`);
      assert.equal(res.status, 400, query);
    }
    assert.equal((await fetch(plain.qrPdfUrl.replace(plain.codeId, "nope"))).status, 404);
  });

  it("PNG at a chosen pixel size decodes, in the design's colours", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "px", destinationUrl: "https://example.com/px", design: { ...BRAND, moduleStyle: "rounded" } }, merchant.apiKey));
    const url = (px: number | string) => `${code.qrSvgUrl.replace("/img/svg/", "/img/png/").replace(".svg?", ".png?")}&px=${px}`;
    for (const px of [300, 2048]) {
      const png = await fetchPng(url(px));
      const decoded = decodePng(png);
      assert.equal(decoded.width, px);
      assert.equal(decoded.payload, "https://example.com/px");
      assert.ok(await hasColour(png, BRAND.foreground));
    }
    // Sizes are a few fixed ones: any other in range is redirected to the nearest, never refused.
    for (const [asked, nearest] of [[2400, 2048], [1000, 1024], [155.5, 150], [3500, 4096]]) {
      const moved = await fetch(url(asked), { redirect: "manual" });
      assert.equal(moved.status, 308, String(asked));
      assert.match(moved.headers.get("location") ?? "", new RegExp(`^/img/png/.+\\.png\\?token=[^&]+&px=${nearest}$`), String(asked));
    }
    assert.equal(decodePng(await fetchPng(url(2400))).width, 2048, "followed, it is the 2048 px file");
    assert.equal((await fetch(url(100))).status, 400);
    assert.equal((await fetch(url(5000))).status, 400);
  });

  it("limits drawn files per client address before anything is read or drawn; another address is not limited", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "walked", destinationUrl: "https://example.com/walked" }, merchant.apiKey));
    const png = `${code.qrSvgUrl.replace("/img/svg/", "/img/png/").replace(".svg?", ".png?")}&px=150`;
    const badToken = png.replace(/token=[^&]+/, "token=00000000-0000-0000-0000-000000000000");
    const script = newClient();
    // The limit counts in fixed one-minute windows: the walk is served at one instant of a fresh one (the
    // local stack's test clock), so it stays inside it however long it takes.
    const clock = servedAt(nextWindowStart(RATE_LIMITS.imageFiles.windowSeconds * 1000));
    const walk = (url: string) => script.fetch(url, { headers: clock });
    // A script walking codes and sizes: every request counts, a refused token too (the limit comes first).
    const statuses = new Set<number>();
    for (let i = 0; i < RATE_LIMITS.imageFiles.max; i++) {
      const answer = await walk(i % 10 ? badToken : png);
      await answer.arrayBuffer();
      statuses.add(answer.status);
    }
    assert.deepEqual([...statuses].sort(), [200, 403]);
    // Instances lease their share of the budget (core/rateLimit.ts): the refusal comes at the limit, or
    // within the leases' documented 10 % when a second instance of the function served part of the walk.
    let refused = await walk(badToken);
    for (let extra = 1; refused.status !== 429 && extra <= RATE_LIMITS.imageFiles.max / 10; extra++) {
      await refused.arrayBuffer();
      refused = await walk(badToken);
    }
    assert.equal(refused.status, 429);
    const error = (await refused.json()) as any;
    assert.equal(error.code, "RATE_LIMITED");
    assert.ok(Number(refused.headers.get("retry-after")) > 0 && Number(refused.headers.get("retry-after")) <= 60);
    assert.equal((await walk(code.qrPdfUrl)).status, 429, "one budget for every kind of drawn file");
    const person = newClient();
    const answered = await person.fetch(png);
    assert.equal(answered.status, 200);
    assert.equal(decodePng(Buffer.from(await answered.arrayBuffer())).payload, "https://example.com/walked");
  });

  it("an agent's 256 KB logo is accepted through /api/mcp (body over the old 256 KiB limit)", async () => {
    const big = await noiseLogo(250_000);
    assert.ok(big.length > 240_000 && big.length <= 256 * 1024, String(big.length));
    const args = { title: "big logo", destinationUrl: "https://example.com/big-logo", dynamic: true, design: { logo: { data: big.toString("base64"), mediaType: "image/png" } } };
    assert.ok(JSON.stringify(args).length > 256 * 1024, "the request is over 256 KiB");
    const code = toolResult(await callTool("svc.qr.create", args, merchant.apiKey));
    assert.ok(code.design.logo, "logo stored");
    assert.equal(decodePng(await fetchPng(code.qrImageUrl)).payload, code.dynamicLink);
  });

  it("svc.brand.list_presets: an agent sees the workspace's presets and uses one by name", async () => {
    const m = await createMerchant();
    assert.deepEqual(toolResult(await callTool("svc.brand.list_presets", {}, m.apiKey)), { count: 0, presets: [] });
    const saved = await fetch(`${appUrl()}/api/console/brand-presets/House`, {
      method: "POST",
      headers: { Authorization: `Bearer ${m.idToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ design: { ...BRAND, logo: { data: logo, mediaType: "image/png" }, eyeStyle: "circle" } }),
    });
    assert.equal(saved.status, 200);
    const listed = toolResult(await callTool("svc.brand.list_presets", {}, m.apiKey));
    assert.equal(listed.count, 1);
    assert.equal(listed.presets[0].name, "House");
    assert.equal(listed.presets[0].design.foreground, BRAND.foreground);
    assert.equal(listed.presets[0].design.eyeStyle, "circle");
    assert.equal(listed.presets[0].design.logo.mediaType, "image/png");
    assert.ok(!JSON.stringify(listed).includes("logos/"), "no storage path");
    const code = toolResult(await callTool("svc.qr.create", { title: "house", destinationUrl: "https://example.com/house", design: { preset: listed.presets[0].name } }, m.apiKey));
    assert.equal(code.design.preset, "House");
    assert.ok(await hasColour(await fetchPng(code.qrImageUrl), BRAND.foreground));
    const writeOnly = await mintKey(m, ["qr:write"]);
    assert.equal((await callTool("svc.brand.list_presets", {}, writeOnly)).body.error.data.code, "INSUFFICIENT_SCOPE");
    assert.equal((await callTool("svc.brand.list_presets", { extra: 1 }, m.apiKey)).body.error.code, -32602);
    const tools = (await (await fetch(`${appUrl()}/api/mcp`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${m.apiKey}` }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) })).json()) as any;
    // A long-tail tool: not in the default list, listed at the designs toolset URL.
    assert.ok(!tools.result.tools.some((t: any) => t.name === "svc.brand.list_presets"));
    const designs = (await (await fetch(`${appUrl()}/api/mcp/x/designs`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${m.apiKey}` }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) })).json()) as any;
    assert.ok(designs.result.tools.some((t: any) => t.name === "svc.brand.list_presets"));
  });

  it("a claimed sandbox code keeps its design's colours", async () => {
    const res = await newClient().fetch(`${appUrl()}/api/generate-qr-code`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/claim-colours", design: { foreground: "#065F46", background: "#ECFDF5" } }),
    });
    const sandbox = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(sandbox));
    const user = await signUp();
    const claimed = await fetch(`${appUrl()}/api/console/claims`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${user.idToken}` },
      body: JSON.stringify({ claimToken: sandbox.code.claimToken }),
    });
    const body = (await claimed.json()) as any;
    assert.equal(claimed.status, 201, JSON.stringify(body));
    assert.equal(body.code.design.foreground, "#065F46");
    assert.equal(body.code.design.background, "#ECFDF5");
    const png = await fetchPng(body.code.qrImageUrl);
    assert.equal(decodePng(png).payload, "https://example.com/claim-colours");
    assert.ok(await hasColour(png, "#065F46"), "the account code is drawn in the sandbox code's colours");
    assert.ok(await hasColour(png, "#ECFDF5"));
    assert.deepEqual(png, Buffer.from(sandbox.code.qrImage.split(",")[1], "base64"), "the same image as the sandbox gave");
  });
});
