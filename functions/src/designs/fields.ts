// What a caller may send as a brand design (zod): colours, a logo, module and eye styles, the quiet zone,
// a preset's name. Shared by the tools, the bulk endpoint, the console and the sandbox (codes/fields.ts
// re-exports it with the other field rules of a code).
import { z } from "zod";
import { PRESET_NAME_PATTERN } from "../core/rules";
import { PRESET_NAME_MAX } from "../core/limits";
import { EYE_STYLES, LOGO_MAX_BYTES, LOGO_MEDIA_TYPES, MODULE_STYLES, QUIET_ZONE_MAX, QUIET_ZONE_MIN } from "../core/constants";

const PRESET_NAME = new RegExp(`^${PRESET_NAME_PATTERN}$`);

const hexColour = z.string().regex(/^#[0-9A-Fa-f]{6}$/, "Must be a colour as #RRGGBB");
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
export const presetName = z.string().regex(PRESET_NAME, `Must be 1 to ${PRESET_NAME_MAX} letters, digits, spaces, _ or -, starting with a letter or digit`);

const logoSchema = z
  .object({
    data: z
      .string()
      .min(4, "Must be the logo file as base64")
      .max(Math.ceil(LOGO_MAX_BYTES / 3) * 4, `Must be at most ${LOGO_MAX_BYTES / 1024} KB`)
      .regex(BASE64, "Must be base64 (no data: prefix, no line breaks)")
      .refine((data) => data.length % 4 === 0, "Must be base64 with padding"),
    mediaType: z.enum(LOGO_MEDIA_TYPES),
  })
  .strict()
  .describe("Base64 image drawn in the centre (error correction H)");

/** The colours of a design: what the keyless sandbox accepts. */
export const designColoursShape = {
  foreground: hexColour.optional().describe("Default #000000; darker than background"),
  background: hexColour.optional().describe("Default #FFFFFF"),
};

/**
 * A brand design. Every field is optional; `preset` starts from a saved brand preset of the workspace and
 * the other fields given override it. Every designed image is decoded before use; a design that does not
 * scan is refused with DESIGN_REFUSED, never altered.
 */
export const designSchema = z
  .object({
    ...designColoursShape,
    logo: logoSchema.optional(),
    moduleStyle: z.enum(MODULE_STYLES).optional().describe("Default square"),
    eyeStyle: z.enum(EYE_STYLES).optional().describe("Finder eyes; default square"),
    quietZone: z.number().int().min(QUIET_ZONE_MIN).max(QUIET_ZONE_MAX).optional().describe("Margin in modules; default 4"),
    preset: presetName.optional().describe("A saved brand preset's name"),
  })
  .strict();
export type DesignInput = z.infer<typeof designSchema>;
