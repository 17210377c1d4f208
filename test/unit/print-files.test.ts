import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { writeArtifact } from "../helpers/artifacts";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_DESIGN, type StoredDesign } from "../../functions/src/designs/design";
import { MIN_SYMBOL_MM, printHint, printModel, renderPdf, renderSizedPng } from "../../functions/src/codes/print";
import { decodePng } from "../helpers/qr";
import { renderPdfPage, ptToMm } from "../helpers/pdf";
import { hasColour } from "../helpers/designs";

const URL_SAMPLE = "https://example.com/menu?table=12";

const code = (design: StoredDesign | null, frame: { boostFrame?: "svc_x3_sunset"; template?: "hexSeal" } = {}) => ({
  dynamic: false,
  dynamicLink: null,
  destinationUrl: URL_SAMPLE,
  boostFrame: frame.boostFrame ?? null,
  template: frame.template ?? null,
  design,
});

const BRAND: StoredDesign = { ...DEFAULT_DESIGN, foreground: "#1E3A8A", background: "#FEF3C7", moduleStyle: "rounded", eyeStyle: "circle" };

describe("print files", function () {
  this.timeout(120_000);

  it("print hint: the symbol is distance / 10 for a 25-module code, grows with the module count, and is never under 20 mm", async () => {
    const model = await printModel(code(null));
    const size = model.matrix.size;
    const at2m = printHint(model, 2);
    assert.equal(at2m.moduleMm, 8, "2 m / 250");
    assert.equal(at2m.symbolMm, 8 * size);
    assert.equal(at2m.sideMm, Math.ceil(8 * (size + 8)), "plus the 4-module quiet zone each side");
    assert.ok(at2m.symbolMm >= 2000 / 10, "at least distance / 10");
    const close = printHint(model, 0.1);
    assert.equal(close.symbolMm, MIN_SYMBOL_MM, "the floor");
    const framed = printHint(await printModel(code(null, { boostFrame: "svc_x3_sunset" })), 2);
    assert.ok(framed.sideMm > at2m.sideMm, "a frame adds to the printed side");
    const long = printHint(await printModel({ ...code(null), destinationUrl: `${URL_SAMPLE}&${"x".repeat(300)}` }), 2);
    assert.ok(long.symbolMm > at2m.symbolMm * 2, "a denser code needs a larger print from the same distance");
  });

  it("PDF: the chosen millimetre size, vector modules in the design's colours, that decode when drawn", async () => {
    for (const [name, c] of [
      ["plain", code(null)],
      ["designed", code(BRAND)],
      ["designed-framed", code(BRAND, { boostFrame: "svc_x3_sunset" })],
    ] as const) {
      const pdf = await renderPdf(c, 60, name);
      assert.equal(pdf.subarray(0, 5).toString(), "%PDF-");
      // Rendered by poppler, not read back by the product's own code.
      const page = await renderPdfPage(pdf, 800);
      assert.equal(Math.round(ptToMm(page.widthPt) * 100) / 100, 60);
      // The code decodes from the rendering, yet no image holds it: modules and eyes are vector paths.
      assert.equal(page.images.length, name === "designed-framed" ? 1 : 0, "only the frame's artwork is an image");
      if (name !== "plain") assert.ok(await hasColour(page.png, "#1E3A8A"), "the design's foreground");
      const png = page.png;
      writeArtifact(`print-pdf-${name}.png`, png);
      assert.equal(decodePng(png).payload, URL_SAMPLE, name);
      assert.deepEqual(await renderPdf(c, 60, name), pdf, "same code and size, same bytes");
    }
  });

  it("PNG at a chosen pixel size: plain codes by the direct encoder, designed codes decoded at that size", async () => {
    for (const c of [code(null), code(BRAND), code(null, { template: "hexSeal" })]) {
      for (const px of [200, 2000]) {
        const png = await renderSizedPng(c, px);
        const decoded = decodePng(png);
        assert.equal(decoded.width, px);
        assert.equal(decoded.payload, URL_SAMPLE);
      }
    }
  });

  it("pdf-lib is loaded only when a PDF is made: not by loading the images function, nor by a plain sized PNG", () => {
    const images = path.resolve(__dirname, "../../functions/src/images/app");
    const print = path.resolve(__dirname, "../../functions/src/codes/print");
    const script = `
      require(${JSON.stringify(images)});
      const { renderSizedPng, renderPdf } = require(${JSON.stringify(print)});
      const loaded = () => Object.keys(require.cache).some((f) => f.includes("/node_modules/pdf-lib/"));
      const code = { dynamic: false, dynamicLink: null, destinationUrl: "${URL_SAMPLE}", boostFrame: null, template: null, design: null };
      renderSizedPng(code, 300).then(async () => {
        const before = loaded();
        await renderPdf(code, 40, "t");
        console.log(JSON.stringify([before, loaded()]));
      });`;
    const file = path.join(mkdtempSync(path.join(tmpdir(), "pdf-lazy-")), "lazy.cjs");
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, ["--import", "tsx", file], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr + run.stdout);
    assert.deepEqual(JSON.parse(run.stdout.trim().split("\n").pop()!), [false, true]);
  });
});
