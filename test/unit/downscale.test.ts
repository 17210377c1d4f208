import assert from "node:assert/strict";
import { downscale } from "../../functions/src/designs/verify";

/** The exact area average, in floating point, one output pixel at a time: slow and obviously right. */
function reference(pixels: Uint8Array, channels: number, from: number, to: number): Float64Array {
  const f = from / to;
  const out = new Float64Array(to * to * 3);
  const cover = (a: number, lo: number, hi: number) => Math.max(0, Math.min(a + 1, hi) - Math.max(a, lo));
  for (let j = 0; j < to; j++) {
    for (let i = 0; i < to; i++) {
      for (let y = Math.floor(j * f); y < Math.min(from, Math.ceil((j + 1) * f)); y++) {
        for (let x = Math.floor(i * f); x < Math.min(from, Math.ceil((i + 1) * f)); x++) {
          const w = (cover(x, i * f, (i + 1) * f) * cover(y, j * f, (j + 1) * f)) / (f * f);
          for (let ch = 0; ch < 3; ch++) out[(j * to + i) * 3 + ch] += pixels[(y * from + x) * channels + ch] * w;
        }
      }
    }
  }
  return out;
}

function noise(side: number, channels: number, seed: number): Buffer {
  const pixels = Buffer.alloc(side * side * channels, 255);
  let s = seed;
  for (let o = 0; o < pixels.length; o++) {
    if (channels === 4 && o % 4 === 3) continue;
    s = (s * 1103515245 + 12345) >>> 0;
    pixels[o] = s >>> 24;
  }
  return pixels;
}

describe("downscale (the decode checks' camera)", () => {
  for (const [from, to, channels] of [[128, 75, 4], [120, 60, 4], [90, 30, 3], [64, 64, 3], [100, 37, 3]] as const) {
    it(`${from} to ${to} px from ${channels === 4 ? "RGBA" : "RGB"}: every value within one level of the exact area mean, opaque`, () => {
      const pixels = noise(from, channels, from * to);
      const got = downscale({ pixels, channels, side: from }, to);
      assert.equal(got.length, to * to * 4);
      const want = reference(pixels, channels, from, to);
      let worst = 0;
      for (let p = 0; p < to * to; p++) {
        for (let ch = 0; ch < 3; ch++) worst = Math.max(worst, Math.abs(got[p * 4 + ch] - want[p * 3 + ch]));
        assert.equal(got[p * 4 + 3], 255);
      }
      assert.ok(worst <= 1, `worst difference ${worst}`);
    });
  }

  it("keeps a flat colour exactly, at any ratio", () => {
    const side = 1024;
    const pixels = Buffer.alloc(side * side * 4);
    for (let o = 0; o < pixels.length; o += 4) pixels.set([0x1e, 0x3a, 0x8a, 255], o);
    for (const to of [600, 512, 300, 150, 77]) {
      const got = downscale({ pixels, channels: 4, side }, to);
      for (let o = 0; o < got.length; o += 4) assert.deepEqual([...got.subarray(o, o + 4)], [0x1e, 0x3a, 0x8a, 255], `${to} px`);
    }
  });

  it("writes every byte of a reused (dirty) buffer: the same result as a fresh one", () => {
    for (const [from, to, channels] of [[128, 75, 4], [120, 60, 4], [64, 64, 3], [64, 64, 4]] as const) {
      const raster = { pixels: noise(from, channels, 7), channels, side: from };
      const fresh = downscale(raster, to, Buffer.alloc(to * to * 4));
      const dirty = downscale(raster, to, Buffer.alloc(to * to * 4, 0x5a));
      assert.ok(dirty.equals(fresh), `${from} to ${to}, ${channels} channels`);
    }
  });
});
