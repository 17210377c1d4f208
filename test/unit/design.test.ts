import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { AppError } from "../../functions/src/core/errors";
import { designSchema } from "../../functions/src/codes/fields";
import { checkedFiles, colourDesign, DEFAULT_DESIGN, designMatrix, drawDesign, type StoredDesign } from "../../functions/src/designs/design";
import { CONTRAST_FLOOR, contrastRatio } from "../../functions/src/designs/contrast";
import { normalizeLogo } from "../../functions/src/designs/logo";
import { drawRaster } from "../../functions/src/designs/raster";
import { decodeSvgBeside } from "../../functions/src/designs/svgCheck";
import { decodeAtSides, decodeSvg, rasteriseSvg, refuseUnlessExact, verifyRaster } from "../../functions/src/designs/verify";
import { EYE_STYLES, MODULE_STYLES } from "../../functions/src/codes/fields";
import { renderPlainPng } from "../../functions/src/qr/render";
import { decodePng } from "../helpers/qr";
import { sampleLogo } from "../helpers/designs";

function refusalOf(error: unknown): { reason: string; suggestion: string } {
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, "DESIGN_REFUSED");
  assert.equal(error.httpStatus, 422);
  return error.details as { reason: string; suggestion: string };
}

const PAYLOAD = "https://example.com/menu?table=12";

describe("brand designs", function () {
  this.timeout(120_000);

  it("the design schema takes exactly the issue's names and refuses SVG logos, bad colours and oversized logos", () => {
    assert.ok(designSchema.safeParse({ foreground: "#1e3a8a", background: "#FFFFFF", logo: { data: "iVBORw0KGgo=", mediaType: "image/png" }, moduleStyle: "dots", eyeStyle: "circle", quietZone: 4, preset: "Spring 2027" }).success);
    assert.equal(designSchema.safeParse({ logo: { data: "PHN2Zz4=", mediaType: "image/svg+xml" } }).success, false);
    assert.equal(designSchema.safeParse({ logo: { url: "https://example.com/logo.png" } }).success, false);
    assert.equal(designSchema.safeParse({ foreground: "blue" }).success, false);
    assert.equal(designSchema.safeParse({ quietZone: 1 }).success, false);
    assert.equal(designSchema.safeParse({ logo: { data: "A".repeat(350_000), mediaType: "image/png" } }).success, false);
    assert.equal(designSchema.safeParse({ colour: "#000000" }).success, false, "unknown keys are refused");
  });

  it("refuses light on dark and colours under the contrast floor, with a reason and a suggestion", () => {
    assert.equal(Math.round(contrastRatio("#000000", "#FFFFFF")), 21);
    const lightOnDark = (() => {
      try {
        colourDesign({ foreground: "#FFFFFF", background: "#111827" });
      } catch (error) {
        return refusalOf(error);
      }
      assert.fail("light on dark was accepted");
    })();
    assert.equal(lightOnDark.reason, "light-on-dark");
    assert.match(lightOnDark.suggestion, /dark modules on a light background/);
    try {
      colourDesign({ foreground: "#888888", background: "#FFFFFF" }); // 3.5:1
      assert.fail("low contrast was accepted");
    } catch (error) {
      assert.equal(refusalOf(error).reason, "low-contrast");
    }
    assert.ok(contrastRatio("#767676", "#FFFFFF") >= CONTRAST_FLOOR);
    assert.doesNotThrow(() => colourDesign({ foreground: "#767676" }));
  });

  it("a styled code with a logo decodes exactly with both decoders at 150, 300 and 600 px, in PNG and SVG", async () => {
    const logo = await normalizeLogo((await sampleLogo()).toString("base64"), "image/png");
    const design: StoredDesign = { ...DEFAULT_DESIGN, foreground: "#1E3A8A", background: "#FEF3C7", moduleStyle: "rounded", eyeStyle: "rounded", logo: { path: "unused", sha256: logo.sha256, width: logo.width, height: logo.height } };
    const { png, svg } = await checkedFiles(PAYLOAD, design, logo, "svc_x3_bluepurple");
    assert.match(svg, /<image [^>]*href="data:image\/png;base64,/, "the SVG keeps the logo");
    // An independent path from the service's check: sharp's own resampling of the PNG, and the SVG rasterised at each size.
    for (const [image, kind] of [[png, "png"], [Buffer.from(svg), "svg"]] as const) {
      for (const outcome of await decodeAtSides(image, kind)) assert.deepEqual([outcome.zxing, outcome.qr], [PAYLOAD, PAYLOAD], `${kind} at ${outcome.side}`);
    }
    const decoded = decodePng(png);
    assert.equal(decoded.payload, PAYLOAD);
    const { data } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    const hex = (o: number) => `#${[data[o], data[o + 1], data[o + 2]].map((v) => v.toString(16).padStart(2, "0")).join("")}`.toUpperCase();
    const colours = new Set<string>();
    for (let o = 0; o < data.length; o += 3 * 97) colours.add(hex(o));
    assert.ok(colours.has("#1E3A8A") && colours.has("#FEF3C7"), "the brand colours are drawn");
  });

  it("the PNG's pixels, drawn from the layout, are the SVG's as librsvg renders it (every style, framed or not, with a logo)", async () => {
    const logo = await normalizeLogo((await sampleLogo()).toString("base64"), "image/png");
    const stored = { path: "unused", sha256: logo.sha256, width: logo.width, height: logo.height };
    for (const moduleStyle of MODULE_STYLES) {
      for (const eyeStyle of EYE_STYLES) {
        for (const frame of [null, "svc_x5_gold", "soundSeal"] as const) {
          const design: StoredDesign = { ...DEFAULT_DESIGN, foreground: "#4C1D95", background: "#FCE7F3", moduleStyle, eyeStyle, quietZone: 3, logo: eyeStyle === "circle" ? stored : null };
          const withLogo = design.logo ? logo : null;
          const drawn = await drawRaster(designMatrix(PAYLOAD, design), design, withLogo, frame);
          const rendered = await rasteriseSvg(drawDesign(PAYLOAD, design, withLogo, frame), 1024);
          assert.equal(drawn.side, rendered.side);
          let sum = 0;
          let far = 0;
          const values = rendered.side * rendered.side * 3;
          for (let px = 0; px < rendered.side * rendered.side; px++) {
            for (let ch = 0; ch < 3; ch++) {
              const d = Math.abs(drawn.pixels[px * drawn.channels + ch] - rendered.pixels[px * rendered.channels + ch]);
              sum += d;
              if (d > 64) far++;
            }
          }
          // Only anti-aliased edges differ, by a shade: on average under 1/255, and under 0.2% of values by more than a quarter.
          const label = `${moduleStyle} modules, ${eyeStyle} eyes, ${frame ?? "no frame"}`;
          assert.ok(sum / values < 1, `${label}: mean difference ${sum / values}`);
          assert.ok(far / values < 0.002, `${label}: ${far} values differ by more than 64`);
        }
      }
    }
  });

  it("a logo is re-encoded as PNG (JPEG and WebP accepted), and bytes that are not the declared image are refused", async () => {
    const jpeg = await sharp(await sampleLogo(900, 600)).jpeg().toBuffer();
    const fromJpeg = await normalizeLogo(jpeg.toString("base64"), "image/jpeg");
    assert.equal((await sharp(fromJpeg.png).metadata()).format, "png");
    assert.ok(fromJpeg.width <= 512 && fromJpeg.height <= 512, "scaled down");
    const webp = await sharp(await sampleLogo()).webp().toBuffer();
    assert.equal((await normalizeLogo(webp.toString("base64"), "image/webp")).width, 240);
    for (const [bytes, type] of [[Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"), "image/png"], [jpeg, "image/png"]] as const) {
      await assert.rejects(normalizeLogo(bytes.toString("base64"), type), (error) => refusalOf(error).reason === "logo-unreadable");
    }
  });

  it("an image that does not give back the encoded text is refused as does-not-decode, naming the decoder and size", async () => {
    const other = await rasteriseSvg(drawDesign("https://example.com/other", DEFAULT_DESIGN, null, null), 600);
    await assert.rejects(verifyRaster(other, PAYLOAD), (error) => {
      const details = refusalOf(error) as unknown as { reason: string; failures: Array<{ decoder: string; side: number; read: string | null }> };
      assert.equal(details.reason, "does-not-decode");
      assert.equal(details.failures[0].read, "https://example.com/other");
      return true;
    });
  });

  it("the SVG's check in a worker thread reads what the in-thread check reads; the functions that make designed codes get 2 vCPUs for it", async () => {
    const design: StoredDesign = { ...DEFAULT_DESIGN, foreground: "#14532D", moduleStyle: "dots", eyeStyle: "rounded" };
    const svg = drawDesign(PAYLOAD, design, null, null);
    const [beside, here] = await Promise.all([decodeSvgBeside(svg, PAYLOAD), decodeSvg(svg, PAYLOAD)]);
    assert.deepEqual(beside, here);
    assert.deepEqual(beside.map((o) => [o.side, o.zxing, o.qr]), [600, 300, 150].map((side) => [side, PAYLOAD, PAYLOAD]));
    // Another code's SVG: the worker reports what it read, and the verdict (taken here) refuses it.
    const other = await decodeSvgBeside(drawDesign("https://example.com/other", design, null, null), PAYLOAD);
    assert.equal(other[0].zxing, "https://example.com/other");
    assert.throws(() => refuseUnlessExact(other, PAYLOAD, "SVG"), (error) => refusalOf(error).reason === "does-not-decode");

    const functions = require("../../functions/src/index") as Record<string, { __endpoint?: { cpu?: number } }>;
    for (const name of ["mcp", "consoleApi", "bulk", "images"]) assert.equal(functions[name].__endpoint?.cpu, 2, name);
  });

  it("a logo on a payload too long for level H is refused as too-long-for-logo", async () => {
    const logo = await normalizeLogo((await sampleLogo()).toString("base64"), "image/png");
    const design: StoredDesign = { ...DEFAULT_DESIGN, logo: { path: "unused", sha256: logo.sha256, width: logo.width, height: logo.height } };
    const long = `https://example.com/${"a".repeat(1400)}`;
    assert.throws(() => drawDesign(long, design, logo, null), (error) => refusalOf(error).reason === "too-long-for-logo");
  });

  it("the plain path stays the direct 1-bit encoder, and loads neither sharp nor the decoders", () => {
    const png = renderPlainPng(PAYLOAD);
    assert.equal(png[24], 1, "bit depth 1");
    assert.equal(decodePng(png).payload, PAYLOAD);
    // A fresh process: render a plain code through the service, then list which heavy modules got loaded.
    const service = path.resolve(__dirname, "../../functions/src/codes/service");
    const script = `
      const { renderCodePng } = require(${JSON.stringify(service)});
      renderCodePng({ dynamic: false, dynamicLink: null, destinationUrl: "${PAYLOAD}", boostFrame: null, template: null, design: null }).then(() => {
        console.log(JSON.stringify(Object.keys(require.cache).filter((f) => f.includes("/node_modules/sharp/") || f.includes("/node_modules/zxing-wasm/") || f.includes("/node_modules/jsqr/") || f.includes("/node_modules/qr/"))));
      });`;
    const file = path.join(mkdtempSync(path.join(tmpdir(), "plain-path-")), "plain.cjs");
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, ["--import", "tsx", file], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr + run.stdout);
    assert.deepEqual(JSON.parse(run.stdout.trim().split("\n").pop()!), []);
  });
});
