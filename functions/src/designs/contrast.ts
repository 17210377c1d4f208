// Colour checks of a design, before anything is drawn. Phone scanners binarise on luminance, so the rule
// is the WCAG 2 contrast ratio of the two colours' relative luminances, with the dark colour on the
// modules: most decoders do not try an inverted image (jsQR's default does, phones' built-ins mostly not).
import { designRefused } from "./refusal";

/** Minimum WCAG contrast ratio between background and foreground (the floor for normal text). */
export const CONTRAST_FLOOR = 4.5;

function channel(value: number): number {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** WCAG 2 relative luminance of "#RRGGBB", 0 (black) to 1 (white). */
export function relativeLuminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16);
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
}

export function contrastRatio(a: string, b: string): number {
  const [la, lb] = [relativeLuminance(a), relativeLuminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** Throws DESIGN_REFUSED when the modules are not darker than the background by the contrast floor. */
export function assertContrast(foreground: string, background: string): void {
  const ratio = contrastRatio(foreground, background);
  if (relativeLuminance(foreground) >= relativeLuminance(background)) {
    throw designRefused("light-on-dark", `The foreground ${foreground} is not darker than the background ${background}`, "Swap the colours: dark modules on a light background.", {
      contrastRatio: round(ratio),
    });
  }
  if (ratio < CONTRAST_FLOOR) {
    throw designRefused(
      "low-contrast",
      `Contrast ratio ${round(ratio)}:1 between ${foreground} and ${background} is below ${CONTRAST_FLOOR}:1`,
      "Use a darker foreground or a lighter background (for example #000000 on your brand's lightest colour).",
      { contrastRatio: round(ratio), contrastFloor: CONTRAST_FLOOR },
    );
  }
}

const round = (n: number) => Math.round(n * 100) / 100;
