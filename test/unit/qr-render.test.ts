import assert from "node:assert/strict";
import { BOOST_FRAMES, TEMPLATES, frameSpec, FRAME_SIDE } from "../../functions/src/qr/frames";
import { qrMatrix } from "../../functions/src/qr/matrix";
import { layoutFor, QUIET_ZONE_MODULES } from "../../functions/src/qr/png";
import { renderFramedPng, renderPlainPng } from "../../functions/src/qr/render";
import { decodePng } from "../helpers/qr";
import { atFullScale } from "../helpers/scale";

const PAYLOADS = [
  "https://example.com/",
  "https://shop.example.com/menu?table=12&utm_source=qr&utm_campaign=spring",
  `https://example.com/${"long-path/".repeat(40)}`,
  "http://127.0.0.1:5000/qr/AbCdEf123456",
];

describe("QR rendering", function () {
  this.timeout(30_000);

  it("plain PNGs are 512 px, decode to their exact payload, and are never transparent", () => {
    for (const payload of PAYLOADS) {
      const decoded = decodePng(renderPlainPng(payload));
      assert.equal(decoded.payload, payload);
      assert.equal(decoded.width, 512);
      assert.equal(decoded.height, 512);
      for (let i = 3; i < decoded.rgba.length; i += 4) assert.equal(decoded.rgba[i], 255);
    }
  });

  it("keeps at least a 4-module white quiet zone", () => {
    for (const payload of PAYLOADS) {
      const { size } = qrMatrix(payload, "M");
      const { scale, offset, side } = layoutFor(size, 512);
      assert.ok(offset >= QUIET_ZONE_MODULES * scale);
      const { rgba } = decodePng(renderPlainPng(payload));
      for (let y = 0; y < side; y++) {
        for (const x of [0, offset - 1, side - offset, side - 1]) {
          const inBand = y < offset || y >= side - offset || x < offset || x >= side - offset;
          if (inBand) assert.equal(rgba[(y * side + x) * 4], 255, `pixel ${x},${y} is white`);
        }
      }
    }
  });

  for (const [i, frame] of [...TEMPLATES, ...BOOST_FRAMES].entries()) {
    // Every payload in every frame at full size (TEST_SCALE=1); scaled, two payloads a frame, in turn, so
    // each payload still meets several frames.
    const payloads = atFullScale ? PAYLOADS : [PAYLOADS[i % PAYLOADS.length], PAYLOADS[(i + 2) % PAYLOADS.length]];
    it(`${frame}: decodes to the exact payload and the frame leaves the code's square white`, async () => {
      for (const payload of payloads) {
        const png = await renderFramedPng(payload, frame);
        const decoded = decodePng(png);
        assert.equal(decoded.width, FRAME_SIDE);
        assert.equal(decoded.payload, payload, `${frame}: ${payload}`);
      }
      // The frame's own canvas is pure white wherever the code and its quiet zone go.
      const { box } = frameSpec(frame);
      const blank = decodePng(await renderFramedPng("x", frame)).rgba;
      const { size } = qrMatrix("x", "Q");
      const { scale, offset } = layoutFor(size, box.side);
      for (let y = box.top; y < box.top + box.side; y += 7) {
        for (let x = box.left; x < box.left + offset - 1; x += 3) {
          const o = (y * FRAME_SIDE + x) * 4;
          assert.deepEqual([...blank.subarray(o, o + 3)], [255, 255, 255], `${frame} quiet zone at ${x},${y}`);
        }
      }
      assert.ok(offset >= QUIET_ZONE_MODULES * scale);
    });
  }

  it("rejects nothing that fits: a 2048-character URL renders plain and framed", async () => {
    const payload = `https://example.com/${"a".repeat(2048 - 20)}`;
    assert.equal(payload.length, 2048);
    assert.equal(decodePng(renderPlainPng(payload)).payload, payload);
    assert.equal(decodePng(await renderFramedPng(payload, "svc_x5_gold")).payload, payload);
  });
});
