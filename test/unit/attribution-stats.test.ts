// The A/B statistics (functions/src/attribution/stats.ts; method in docs/attribution-figures.md) against
// reference values computed elsewhere:
// - Wilson intervals: Newcombe R.G. (1998), "Two-sided confidence intervals for the single proportion:
//   comparison of seven methods", Statistics in Medicine 17:857-872, Table II, method 3 (score interval
//   without continuity correction), its examples 81/263, 15/148, 0/20 and 1/29, printed to 4 places.
// - Φ: the standard normal quantiles of any table (NIST/SEMATECH e-Handbook of Statistical Methods,
//   1.3.6.7.1): Φ(1.959964) = 0.975, Φ(2.575829) = 0.995, Φ(1.644854) = 0.95; and a second path in this
//   file, Simpson's rule over the normal density.
// - The pooled z-test: a second path in this file, Pearson's chi-square statistic of the 2×2 table
//   (observed against expected counts), which equals z² for a pooled two-proportion test; and, by hand,
//   the data of Newcombe's example for differences (1998b, Statistics in Medicine 17:873-890), 56/70
//   against 48/80: p̂ = 104/150 = 0.69333, SE = √(0.69333 × 0.30667 × (1/70 + 1/80)) = 0.075467,
//   z = 0.2 / 0.075467 = 2.650, two-sided p = 2 × (1 − Φ(2.650)) = 0.0080.
import assert from "node:assert/strict";
import { DEFAULT_HORIZON, normalCdf, splitResult, twoProportionTest, wilsonInterval } from "../../functions/src/attribution/stats";

const round4 = (x: number | null) => (x === null ? null : Math.round(x * 10_000) / 10_000);

/** Second path for Φ: Simpson's rule over the density from 0 to |z| (2,000 panels). */
function simpsonCdf(z: number): number {
  const f = (t: number) => Math.exp((-t * t) / 2) / Math.sqrt(2 * Math.PI);
  const n = 2000;
  const h = Math.abs(z) / n;
  let sum = f(0) + f(Math.abs(z));
  for (let i = 1; i < n; i++) sum += f(i * h) * (i % 2 ? 4 : 2);
  const half = (sum * h) / 3;
  return z >= 0 ? 0.5 + half : 0.5 - half;
}

/** Second path for the pooled z: Pearson's chi-square of the 2×2 table, whose square root is |z|. */
function pearsonChiSquare(x1: number, n1: number, x2: number, n2: number): number {
  const cells = [
    [x1, n1 - x1],
    [x2, n2 - x2],
  ];
  const rows = [n1, n2];
  const cols = [x1 + x2, n1 + n2 - x1 - x2];
  const total = n1 + n2;
  let chi = 0;
  for (let r = 0; r < 2; r++) for (let c = 0; c < 2; c++) {
    const expected = (rows[r] * cols[c]) / total;
    chi += (cells[r][c] - expected) ** 2 / expected;
  }
  return chi;
}

describe("A/B statistics", () => {
  it("Wilson intervals match Newcombe (1998), Table II, method 3", () => {
    const cases: Array<[number, number, number, number]> = [
      [81, 263, 0.2553, 0.3662],
      [15, 148, 0.0624, 0.1605],
      [0, 20, 0, 0.1611],
      [1, 29, 0.0061, 0.1718],
    ];
    for (const [x, n, low, high] of cases) {
      const w = wilsonInterval(x, n);
      assert.deepEqual([round4(w.low), round4(w.high)], [low, high], `${x}/${n}`);
      assert.equal(w.rate, x / n);
    }
  });

  it("an interval stays within [0, 1], and an arm without people has no rate", () => {
    const all = wilsonInterval(29, 29);
    assert.equal(all.high, 1);
    assert.ok(all.low! > 0.88 && all.low! < 0.89);
    assert.deepEqual(wilsonInterval(0, 0), { successes: 0, trials: 0, rate: null, low: null, high: null });
    // Two sales by one person: capped at the people, so the interval is still a proportion's.
    assert.equal(wilsonInterval(12, 10).rate, 1);
  });

  it("Φ matches the normal table and an independent integration", () => {
    assert.ok(Math.abs(normalCdf(1.959964) - 0.975) < 1e-6);
    assert.ok(Math.abs(normalCdf(2.575829) - 0.995) < 1e-6);
    assert.ok(Math.abs(normalCdf(-1.644854) - 0.05) < 1e-6);
    for (const z of [-3.2, -1.1, 0.3, 0.9, 2.2, 3.7]) assert.ok(Math.abs(normalCdf(z) - simpsonCdf(z)) < 1e-6, `z=${z}`);
  });

  it("the pooled z-test matches Pearson's chi-square of the same table", () => {
    const cases: Array<[number, number, number, number]> = [
      [56, 70, 48, 80],
      [50, 1000, 80, 1000],
      [3, 40, 9, 38],
      [120, 900, 118, 910],
    ];
    for (const [x1, n1, x2, n2] of cases) {
      const t = twoProportionTest({ successes: x1, trials: n1 }, { successes: x2, trials: n2 })!;
      assert.ok(Math.abs(t.z * t.z - pearsonChiSquare(x1, n1, x2, n2)) < 1e-9, `${x1}/${n1} vs ${x2}/${n2}`);
      assert.equal(Math.sign(t.z), Math.sign(x1 / n1 - x2 / n2));
      assert.ok(Math.abs(t.pValue - 2 * (1 - simpsonCdf(Math.abs(t.z)))) < 1e-6);
    }
    // 56/70 against 48/80, worked by hand above.
    const ex = twoProportionTest({ successes: 56, trials: 70 }, { successes: 48, trials: 80 })!;
    assert.equal(ex.z.toFixed(3), "2.650");
    assert.equal(ex.pValue.toFixed(4), "0.0080");
    // Nothing to test: no spread, or an empty arm.
    assert.equal(twoProportionTest({ successes: 0, trials: 50 }, { successes: 0, trials: 60 }), null);
    assert.equal(twoProportionTest({ successes: 1, trials: 0 }, { successes: 0, trials: 60 }), null);
  });

  it("reads the test only at the horizon, and says so in words", () => {
    const early = splitResult([
      { arm: "0.0", label: "A", successes: 30, trials: 400 },
      { arm: "0.1", label: "B", successes: 60, trials: 390 },
    ]);
    assert.equal(early.atHorizon, false);
    assert.deepEqual(early.arms.map((a) => [a.state, a.z, a.pValue]), [["control", null, null], ["collecting", null, null]]);
    assert.equal(early.verdict, `Not yet significant: the test is read once each arm has ${DEFAULT_HORIZON.toLocaleString("en-US")} people (A has 400, B has 390).`);
    // The intervals are there all along: they describe, they do not decide.
    assert.equal(round4(early.arms[1].low), round4(wilsonInterval(60, 390).low));

    const won = splitResult([
      { arm: "0.0", label: "A", successes: 50, trials: 1000 },
      { arm: "0.1", label: "B", successes: 80, trials: 1000 },
    ]);
    assert.equal(won.atHorizon, true);
    assert.equal(won.arms[1].state, "better");
    assert.equal(won.arms[1].z!.toFixed(3), Math.sqrt(pearsonChiSquare(80, 1000, 50, 1000)).toFixed(3));
    assert.equal(won.verdict, "Significant at 95%: B converts better than A (8.0% against 5.0%).");

    const lost = splitResult([
      { arm: "0.0", label: "A", successes: 80, trials: 1000 },
      { arm: "0.1", label: "B", successes: 50, trials: 1000 },
    ]);
    assert.equal(lost.arms[1].state, "worse");

    const even = splitResult([
      { arm: "0.0", label: "A", successes: 50, trials: 1000 },
      { arm: "0.1", label: "B", successes: 60, trials: 1000 },
    ]);
    assert.equal(even.arms[1].state, "no_difference");
    assert.equal(even.verdict, "No significant difference at 95%: A 5.0%, B 6.0% could differ by chance.");
  });

  it("splits the level between comparisons when there are more than two arms", () => {
    // p ≈ 0.04 against the control: significant alone, not with three comparisons (alpha 0.05 / 3).
    const arms = [
      { arm: "0.0", label: "A", successes: 50, trials: 1000 },
      { arm: "0.1", label: "B", successes: 50, trials: 1000 },
      { arm: "0.2", label: "C", successes: 50, trials: 1000 },
      { arm: "0.3", label: "D", successes: 73, trials: 1000 },
    ];
    const t = twoProportionTest(arms[3], arms[0])!;
    assert.ok(t.pValue < 0.05 && t.pValue > 0.05 / 3, `p=${t.pValue}`);
    const r = splitResult(arms);
    assert.equal(r.alpha, Number((0.05 / 3).toPrecision(12)));
    assert.equal(r.arms[3].state, "no_difference");
    assert.equal(splitResult([arms[0], arms[3]]).arms[1].state, "better");
  });

  it("a custom horizon is honoured", () => {
    const r = splitResult(
      [
        { arm: "0.0", label: "A", successes: 2, trials: 20 },
        { arm: "0.1", label: "B", successes: 12, trials: 20 },
      ],
      20,
    );
    assert.equal(r.atHorizon, true);
    assert.equal(r.arms[1].state, "better");
  });
});
