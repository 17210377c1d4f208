import assert from "node:assert/strict";
import QRCode from "qrcode";
import { qrMatrix } from "../../functions/src/qr/matrix";

describe("QR matrix (fast mask choice)", () => {
  it("matches QRCode.create's own mask choice module for module", () => {
    const levels = ["L", "M", "Q", "H"] as const;
    for (let i = 0; i < 300; i++) {
      const text = `https://example.com/${"x".repeat(i % 97)}?n=${i}&q=${(i * 7919) % 1000}`;
      const level = levels[i % 4];
      const ours = qrMatrix(text, level);
      const reference = QRCode.create(text, { errorCorrectionLevel: level });
      assert.equal(ours.size, reference.modules.size, text);
      assert.deepEqual(Buffer.from(ours.data), Buffer.from(reference.modules.data as unknown as Uint8Array), `${level} ${text}`);
    }
  });
});
