// A brand design as stored, on a code (store/codes.ts) and on a brand preset (store/brandPresets.ts).
// designs/ resolves and draws it; the shape lives here, below the code that reads and writes it.
import type { EYE_STYLES, MODULE_STYLES } from "../core/constants";

export interface DesignStyle {
  foreground: string;
  background: string;
  moduleStyle: (typeof MODULE_STYLES)[number];
  eyeStyle: (typeof EYE_STYLES)[number];
  quietZone: number;
}

/** A logo already re-encoded and kept in the image store (store/images.ts) under `path`. */
export interface StoredLogo {
  path: string;
  sha256: string;
  width: number;
  height: number;
}

export interface StoredDesign extends DesignStyle {
  logo: StoredLogo | null;
  /** The preset the design started from, for people; the stored fields are what is drawn. */
  preset: string | null;
}
