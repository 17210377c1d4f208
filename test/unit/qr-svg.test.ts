import assert from "node:assert/strict";
import { BOOST_FRAMES, TEMPLATES } from "../../functions/src/qr/frames";
import { qrMatrixBestFit } from "../../functions/src/qr/matrix";
import { PLAIN_ERROR_CORRECTION } from "../../functions/src/qr/render";
import { modulePath, renderFramedSvg, renderPlainSvg } from "../../functions/src/qr/svg";
import { decodeSvg, isVectorOnly } from "../helpers/qr";

// Short, typical, near the plain limit at M, and a dynamic link.
const PAYLOADS = ["https://ex.am/", "https://cafe.example.org/specials?day=mon&utm_medium=print", `https://example.net/${"segment-".repeat(45)}`, "http://127.0.0.1:5000/qr/Zz09Yy18Xx27"];

describe("QR SVG rendering", function () {
  this.timeout(60_000);

  it("plain SVGs are vectors only and decode to their exact payload once rasterised", async () => {
    for (const payload of PAYLOADS) {
      const svg = renderPlainSvg(payload);
      assert.ok(isVectorOnly(svg), "no embedded bitmap");
      assert.match(svg, /<path [^>]*d="M/);
      assert.equal((await decodeSvg(svg)).payload, payload);
    }
  });

  it("draws exactly the matrix's dark modules", () => {
    const matrix = qrMatrixBestFit(PAYLOADS[1], PLAIN_ERROR_CORRECTION);
    const dark = matrix.data.reduce((n, v) => n + v, 0);
    let drawn = 0;
    for (const m of modulePath(matrix).matchAll(/M\d+ \d+h(\d+)v1h-\d+z/g)) drawn += Number(m[1]);
    assert.equal(drawn, dark);
  });

  it("every frame is drawn as vectors around a code that decodes", async () => {
    for (const frame of [...TEMPLATES, ...BOOST_FRAMES]) {
      for (const payload of [PAYLOADS[0], PAYLOADS[3]]) {
        const svg = renderFramedSvg(payload, frame);
        assert.ok(isVectorOnly(svg), `${frame}: no embedded bitmap`);
        assert.equal((await decodeSvg(svg)).payload, payload, `${frame} decodes`);
      }
    }
  });
});
