// The statistics behind an A/B split's figures (docs/attribution-figures.md): each arm's conversion rate
// with a Wilson score interval, and a pooled two-proportion z-test read once, at a horizon fixed before
// the split starts, so that looking at the figures every day cannot turn noise into a winner (peeking).
// Pure functions: no Firestore, no clock.

/** Confidence of every interval and of the test (two-sided). */
export const CONFIDENCE = 0.95;
/** The standard normal quantile for CONFIDENCE: Φ⁻¹(0.975). */
export const Z_95 = 1.959963984540054;
/**
 * People per arm before the test is read. 1,000 detects a rise from 5% to 8% conversion with 80% power
 * at 95% confidence (the usual sample-size formula for two proportions gives 1,059; docs say how).
 */
export const DEFAULT_HORIZON = 1000;
/** Smallest and largest horizon a caller may fix. */
export const HORIZON_MIN = 20;
export const HORIZON_MAX = 10_000_000;

/**
 * erfc(x) for x ≥ 0, from the Chebyshev fit of Numerical Recipes (2nd ed., §6.2, `erfcc`): fractional
 * error below 1.2e-7 everywhere, more than enough for a p-value shown to three places.
 */
function erfcNonNegative(x: number): number {
  const t = 1 / (1 + 0.5 * x);
  const poly =
    -x * x -
    1.26551223 +
    t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  return t * Math.exp(poly);
}

/** Φ(z), the standard normal distribution function. */
export function normalCdf(z: number): number {
  const tail = 0.5 * erfcNonNegative(Math.abs(z) / Math.SQRT2);
  return z >= 0 ? 1 - tail : tail;
}

/** A rate with its Wilson score interval; null figures when there are no trials. */
export interface RateInterval {
  successes: number;
  trials: number;
  rate: number | null;
  low: number | null;
  high: number | null;
}

/**
 * Wilson score interval (Wilson 1927; Newcombe 1998's method 3, without continuity correction). Unlike
 * the plain p ± z·√(p(1-p)/n) it stays within [0, 1] and is sensible at 0 and n successes, which small
 * arms often have. Successes above trials (a person who bought twice) are capped at trials.
 */
export function wilsonInterval(successes: number, trials: number, z = Z_95): RateInterval {
  if (!(trials > 0)) return { successes, trials, rate: null, low: null, high: null };
  const x = Math.min(Math.max(successes, 0), trials);
  const p = x / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return { successes, trials, rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Pooled two-proportion z-test of H0: p1 = p2. z = (p1 - p2) / √(p̂(1-p̂)(1/n1 + 1/n2)) with p̂ the pooled
 * rate; the p-value is two-sided. Null when an arm has no trials or the pooled rate is 0 or 1 (no spread:
 * nothing to test).
 */
export function twoProportionTest(a: { successes: number; trials: number }, b: { successes: number; trials: number }): { z: number; pValue: number } | null {
  if (!(a.trials > 0 && b.trials > 0)) return null;
  const x1 = Math.min(Math.max(a.successes, 0), a.trials);
  const x2 = Math.min(Math.max(b.successes, 0), b.trials);
  const pooled = (x1 + x2) / (a.trials + b.trials);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.trials + 1 / b.trials));
  if (!(se > 0)) return null;
  const z = (x1 / a.trials - x2 / b.trials) / se;
  return { z, pValue: 2 * (1 - normalCdf(Math.abs(z))) };
}

export interface ArmInput {
  arm: string;
  /** A name a shop owner knows the arm by (its variant letter and URL, say). */
  label: string;
  successes: number;
  trials: number;
}

export type ArmVerdictState = "control" | "collecting" | "no_difference" | "better" | "worse";

export interface ArmResult extends RateInterval {
  arm: string;
  label: string;
  /** Against the first arm (the control); null for the control itself and before the horizon. */
  z: number | null;
  pValue: number | null;
  state: ArmVerdictState;
}

export interface SplitResult {
  confidence: number;
  horizon: number;
  /** Significance level each comparison is held to: (1 - confidence) / comparisons (Bonferroni). */
  alpha: number;
  /** True once every arm has reached the horizon: only then are z, pValue and the verdict read. */
  atHorizon: boolean;
  arms: ArmResult[];
  /** One sentence for a shop owner. */
  verdict: string;
}

const percent = (rate: number | null) => (rate === null ? "no rate" : `${(rate * 100).toFixed(1)}%`);

/**
 * An A/B split's result: every arm's rate and interval always (they describe, they do not decide); each
 * later arm tested against the first only once every arm has `horizon` trials. With more than two arms the
 * level is split between the comparisons (Bonferroni), so three arms are not three chances of a fluke.
 */
export function splitResult(arms: ArmInput[], horizon = DEFAULT_HORIZON, confidence = CONFIDENCE): SplitResult {
  const comparisons = Math.max(1, arms.length - 1);
  // Rounded so that 0.05 reads as 0.05, not 0.05000000000000004.
  const alpha = Number(((1 - confidence) / comparisons).toPrecision(12));
  const atHorizon = arms.length >= 2 && arms.every((a) => a.trials >= horizon);
  const control = arms[0];
  const results: ArmResult[] = arms.map((a, i) => {
    const interval = wilsonInterval(a.successes, a.trials);
    const base = { ...interval, arm: a.arm, label: a.label, z: null, pValue: null };
    if (i === 0) return { ...base, state: "control" as const };
    if (!atHorizon) return { ...base, state: "collecting" as const };
    const test = twoProportionTest(a, control);
    if (!test) return { ...base, state: "no_difference" as const };
    const state: ArmVerdictState = test.pValue < alpha ? (test.z > 0 ? "better" : "worse") : "no_difference";
    return { ...base, z: test.z, pValue: test.pValue, state };
  });
  return { confidence, horizon, alpha, atHorizon, arms: results, verdict: verdictOf(results, horizon, atHorizon, confidence) };
}

function verdictOf(arms: ArmResult[], horizon: number, atHorizon: boolean, confidence: number): string {
  const level = `${Math.round(confidence * 100)}%`;
  if (arms.length < 2) return "An A/B result needs at least two arms.";
  if (!atHorizon) {
    const count = (n: number) => n.toLocaleString("en-US");
    const short = arms.filter((a) => a.trials < horizon).map((a) => `${a.label} has ${count(a.trials)}`);
    return `Not yet significant: the test is read once each arm has ${count(horizon)} people (${short.join(", ")}).`;
  }
  const control = arms[0];
  const winners = arms.filter((a) => a.state === "better");
  const losers = arms.filter((a) => a.state === "worse");
  if (winners.length === 0 && losers.length === 0) {
    return `No significant difference at ${level}: ${arms.map((a) => `${a.label} ${percent(a.rate)}`).join(", ")} could differ by chance.`;
  }
  const parts = [
    ...winners.map((a) => `${a.label} converts better than ${control.label} (${percent(a.rate)} against ${percent(control.rate)})`),
    ...losers.map((a) => `${a.label} converts worse than ${control.label} (${percent(a.rate)} against ${percent(control.rate)})`),
  ];
  return `Significant at ${level}: ${parts.join("; ")}.`;
}
