import assert from "node:assert/strict";
import { appUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import type { TestMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { decodePng, decodeSvg, fetchPng } from "../helpers/qr";
import { hasColour, merchantWithLogo } from "../helpers/designs";

const BRAND = { foreground: "#1E3A8A", background: "#FEF3C7" };

async function call(path: string, token: string, body?: unknown, method = body === undefined ? "GET" : "POST") {
  const res = await fetch(`${appUrl()}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const type = res.headers.get("content-type") ?? "";
  return { status: res.status, type, body: type.startsWith("application/json") ? ((await res.json()) as any) : Buffer.from(await res.arrayBuffer()) };
}

async function expectScans(png: Buffer, payload: string, colour?: string) {
  assert.equal(decodePng(png).payload, payload);
  if (colour) assert.ok(await hasColour(png, colour), `image has ${colour}`);
}

describe("brand designs on every surface", function () {
  this.timeout(120_000);
  const setup = merchantWithLogo();
  let merchant: TestMerchant;
  let logo: string;
  before(() => ({ merchant, logo } = setup));

  it("svc.qr.create: a framed design with a logo is stored, and its PNG and SVG (logo kept) decode", async () => {
    const code = toolResult(
      await callTool("svc.qr.create", { title: "brand", destinationUrl: "https://example.com/brand", boostFrame: "svc_x3_sunset", design: { ...BRAND, logo: { data: logo, mediaType: "image/png" }, moduleStyle: "rounded", eyeStyle: "rounded", quietZone: 4 } }, merchant.apiKey),
    );
    assert.deepEqual({ ...code.design, logo: undefined }, { ...BRAND, moduleStyle: "rounded", eyeStyle: "rounded", quietZone: 4, preset: null, logo: undefined });
    assert.equal(code.design.logo.mediaType, "image/png");
    await expectScans(await fetchPng(code.qrImageUrl), code.destinationUrl, BRAND.foreground);
    const svg = await (await fetch(code.qrSvgUrl)).text();
    assert.match(svg, /<image [^>]*href="data:image\/png;base64,/, "the SVG keeps the logo");
    assert.equal((await decodeSvg(svg)).payload, code.destinationUrl);
  });

  it("refuses light on dark with DESIGN_REFUSED (JSON-RPC -32000, data.reason and data.suggestion), writing nothing", async () => {
    const res = await callTool("svc.qr.create", { title: "inverted", destinationUrl: "https://example.com/inv", design: { foreground: "#FFFFFF", background: "#000000" } }, merchant.apiKey);
    assert.equal(res.body.error.code, -32000);
    assert.equal(res.body.error.data.code, "DESIGN_REFUSED");
    assert.equal(res.body.error.data.reason, "light-on-dark");
    assert.ok(res.body.error.data.suggestion);
    const listed = toolResult(await callTool("svc.qr.list", {}, merchant.apiKey));
    assert.ok(!listed.codes.some((c: any) => c.title === "inverted"));
  });

  it("svc.qr.update: a new design re-renders at the same qrImageUrl; null returns to the plain code", async () => {
    const code = toolResult(await callTool("svc.qr.create", { title: "to style", destinationUrl: "https://example.com/later", dynamic: true }, merchant.apiKey));
    const styled = toolResult(await callTool("svc.qr.update", { codeId: code.codeId, design: { foreground: "#14532D", moduleStyle: "dots" } }, merchant.apiKey));
    assert.equal(styled.qrImageUrl, code.qrImageUrl);
    assert.equal(styled.design.moduleStyle, "dots");
    await expectScans(await fetchPng(code.qrImageUrl), code.dynamicLink, "#14532D");
    const plain = toolResult(await callTool("svc.qr.update", { codeId: code.codeId, design: null }, merchant.apiKey));
    assert.equal(plain.design, null);
    const png = await fetchPng(code.qrImageUrl);
    assert.equal(png[24], 1, "back to the 1-bit plain PNG");
    await expectScans(png, code.dynamicLink);
  });

  it("brand presets: saved in the console, used by name from a tool, the bulk endpoint and the CSV import", async () => {
    const saved = await call("/api/console/brand-presets/Spring", merchant.idToken, { design: { ...BRAND, logo: { data: logo, mediaType: "image/png" }, eyeStyle: "circle" } });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.deepEqual((await call("/api/console/brand-presets", merchant.idToken)).body.presets.map((p: any) => p.name), ["Spring"]);
    const code = toolResult(await callTool("svc.qr.create", { title: "preset", destinationUrl: "https://example.com/p", design: { preset: "Spring", moduleStyle: "rounded" } }, merchant.apiKey));
    assert.equal(code.design.preset, "Spring");
    assert.equal(code.design.eyeStyle, "circle");
    assert.ok(code.design.logo, "the preset's logo");
    await expectScans(await fetchPng(code.qrImageUrl), "https://example.com/p", BRAND.foreground);
    const unknown = await callTool("svc.qr.create", { title: "x", destinationUrl: "https://example.com/x", design: { preset: "Nope" } }, merchant.apiKey);
    assert.equal(unknown.body.error.data.code, "NOT_FOUND");

    const bulk = await call("/api/bulk-qr-codes", merchant.apiKey, { urls: ["https://example.com/b1", "https://example.com/b2"], design: { preset: "Spring" } });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    for (const c of bulk.body.codes) await expectScans(await fetchPng(c.qrImageUrl), c.destinationUrl, BRAND.foreground);
    const refused = await call("/api/bulk-qr-codes", merchant.apiKey, { urls: ["https://example.com/b3"], design: { foreground: "#BBBBBB" } });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, "DESIGN_REFUSED");
    assert.equal(refused.body.details.reason, "low-contrast");
    assert.ok(refused.body.hint, "the suggestion");

    const res = await fetch(`${appUrl()}/api/console/codes/import`, {
      method: "POST",
      headers: { Authorization: `Bearer ${merchant.idToken}`, "Content-Type": "application/json", "Idempotency-Key": `design-${Date.now()}` },
      body: JSON.stringify({ rows: [{ title: "row", destinationUrl: "https://example.com/row" }], design: { preset: "Spring" } }),
    });
    const imported = (await res.json()) as any;
    assert.equal(res.status, 201, JSON.stringify(imported));
    assert.equal(imported.codes[0].design.preset, "Spring");
    await expectScans(await fetchPng(imported.codes[0].qrImageUrl), "https://example.com/row", BRAND.foreground);
  });

  it("console: the preview is the exact designed image, and create stores the same design", async () => {
    const body = { destinationUrl: "https://example.com/console", template: "hexSeal", design: { ...BRAND, moduleStyle: "dots", eyeStyle: "rounded" } };
    const preview = await call("/api/console/codes/preview", merchant.idToken, body);
    assert.equal(preview.status, 200);
    await expectScans(preview.body, body.destinationUrl, BRAND.foreground);
    const created = await call("/api/console/codes", merchant.idToken, { ...body, title: "console design" });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(await fetchPng(created.body.qrImageUrl), preview.body, "stored image equals the preview");
    const bad = await call("/api/console/codes/preview", merchant.idToken, { ...body, design: { foreground: "#FFFFFF", background: "#1E3A8A" } });
    assert.equal(bad.status, 422);
  });

  it("sandbox: colours only, decoded before they are returned", async () => {
    const post = (body: unknown) =>
      newClient().fetch(`${appUrl()}/api/generate-qr-code`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const res = await post({ url: "https://example.com/sandbox-colours", design: { foreground: "#4C1D95", background: "#FCE7F3" } });
    const answer = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(answer));
    await expectScans(Buffer.from(answer.code.qrImage.split(",")[1], "base64"), "https://example.com/sandbox-colours", "#4C1D95");
    assert.equal((await post({ url: "https://example.com/s", design: { logo: { data: logo, mediaType: "image/png" } } })).status, 400, "no logos in the sandbox");
    assert.equal((await post({ url: "https://example.com/s", design: { foreground: "#FFFFFF", background: "#000000" } })).status, 422);
  });
});
