// The one scale knob for test sizes (issue 53): every change runs loops, floods, fuzzers and workloads at a
// tenth of their full size, enough to exercise each code path and keep each assertion meaningful; full size
// runs on demand (`npm run test:full`, TEST_SCALE=1) and nightly. A property that needs the full size to be
// provable keeps that sub-assertion behind `atFullScale` and says so where it is.

/** TEST_SCALE: 0.1 unless set; a number in (0, 1]. */
export const TEST_SCALE = (() => {
  const raw = process.env.TEST_SCALE;
  if (raw === undefined || raw === "") return 0.1;
  const value = Number(raw);
  if (!(value > 0 && value <= 1)) throw new Error(`TEST_SCALE must be a number in (0, 1], not "${raw}"`);
  return value;
})();

/** True when the tests run at full size. */
export const atFullScale = TEST_SCALE === 1;

/** `full` scaled by TEST_SCALE, rounded, and never under `min` (the least that still exercises the path). */
export function scaled(full: number, min = 1): number {
  return Math.min(full, Math.max(min, Math.round(full * TEST_SCALE)));
}
