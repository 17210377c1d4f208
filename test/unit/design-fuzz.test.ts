import assert from "node:assert/strict";
import { AppError } from "../../functions/src/core/errors";
import { BOOST_FRAMES, TEMPLATES } from "../../functions/src/core/constants";
import { EYE_STYLES, MODULE_STYLES, QUIET_ZONE_MAX, QUIET_ZONE_MIN } from "../../functions/src/codes/fields";
import { checkedFiles, DEFAULT_DESIGN, drawDesign, type StoredDesign } from "../../functions/src/designs/design";
import { normalizeLogo } from "../../functions/src/designs/logo";
import type { LogoImage } from "../../functions/src/designs/svg";
import { decodePng } from "../helpers/qr";
import { sampleLogo } from "../helpers/designs";
import { scaled } from "../helpers/scale";

const REASONS = new Set(["light-on-dark", "low-contrast", "does-not-decode", "too-long-for-logo"]);
/**
 * `npm test` runs the first 150 combinations of the fixed seed scaled by TEST_SCALE (30 at the default,
 * enough to meet both outcomes); `npm run fuzz:designs` runs the full 1,000
 * of the same sequence.
 */
const COMBINATIONS = Number(process.env.DESIGN_FUZZ_COMBINATIONS ?? scaled(150, 30));

/** Deterministic PRNG (mulberry32), so a failing combination can be replayed from its index. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("design fuzz", function () {
  this.timeout(1_200_000);

  it(`${COMBINATIONS} random designs: every one either decodes exactly or is refused with a named reason and a suggestion`, async () => {
    const rand = random(21);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
    const colour = () => `#${Math.floor(rand() * 0xffffff).toString(16).padStart(6, "0").toUpperCase()}`;
    const logos: Array<LogoImage & { sha256: string }> = [];
    for (const [w, h, c] of [[240, 200, "#DC2626"], [400, 120, "#111827"], [128, 128, "#16A34A"]] as const) {
      logos.push(await normalizeLogo((await sampleLogo(w, h, c)).toString("base64"), "image/png"));
    }
    const outcomes = new Map<string, number>();
    for (let i = 0; i < COMBINATIONS; i++) {
      // Half the colours from the whole range (many refused for contrast), half dark-on-light brand pairs.
      const brand = rand() < 0.5;
      const logo = rand() < 0.4 ? pick(logos) : null;
      const design: StoredDesign = {
        ...DEFAULT_DESIGN,
        foreground: brand ? pick(["#000000", "#1E3A8A", "#7C2D12", "#14532D", "#4C1D95", "#374151"]) : colour(),
        background: brand ? pick(["#FFFFFF", "#FEF3C7", "#ECFEFF", "#F5F5F4", "#FCE7F3"]) : colour(),
        moduleStyle: pick(MODULE_STYLES),
        eyeStyle: pick(EYE_STYLES),
        quietZone: QUIET_ZONE_MIN + Math.floor(rand() * (QUIET_ZONE_MAX - QUIET_ZONE_MIN + 1)),
        logo: logo && { path: "unused", sha256: logo.sha256, width: logo.width, height: logo.height },
      };
      const frame = rand() < 0.3 ? pick([...TEMPLATES, ...BOOST_FRAMES]) : null;
      const payload = rand() < 0.1 ? `https://example.com/${"p".repeat(Math.floor(rand() * 1500))}` : `https://example.com/c/${i}?utm=${Math.floor(rand() * 1e9)}`;
      let outcome: string;
      try {
        const { png, svg } = await checkedFiles(payload, design, logo, frame);
        assert.equal(svg, drawDesign(payload, design, logo, frame), `combination ${i}: the SVG served later is the one checked`);
        // What was returned must scan: decode the full-size PNG with the test's own decoder path.
        assert.equal(decodePng(png).payload, payload, `combination ${i} was accepted but the PNG does not decode`);
        outcome = "decodes";
      } catch (error) {
        if (error instanceof assert.AssertionError) throw error;
        assert.ok(error instanceof AppError && error.code === "DESIGN_REFUSED", `combination ${i}: ${String(error)}`);
        const { reason, suggestion } = error.details as { reason: string; suggestion: string };
        assert.ok(REASONS.has(reason), `combination ${i}: unknown reason ${reason}`);
        assert.ok(suggestion.length > 10, `combination ${i}: no suggestion`);
        outcome = `refused: ${reason}`;
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    console.log(`      design fuzz (${COMBINATIONS}):`, Object.fromEntries(outcomes));
    assert.equal([...outcomes.values()].reduce((a, b) => a + b, 0), COMBINATIONS);
    assert.ok((outcomes.get("decodes") ?? 0) > COMBINATIONS / 4, "a fair share of random designs is accepted");
  });
});

