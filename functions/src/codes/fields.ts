// Field rules for QR codes, shared by the tools, the bulk endpoint and the sandbox claim.
import { z } from "zod";
import { httpUrl, text } from "../core/validation";
import { PRESET_NAME_PATTERN } from "../core/rules";
import { CAMPAIGN_MAX, DESIGN_MAX_BODY_BYTES, PRESET_NAME_MAX, TAG_MAX, TAGS_MAX, TITLE_MAX, URL_MAX_LENGTH } from "../core/limits";
import { ids } from "../core/ids";
import { BOOST_FRAMES, EYE_STYLES, LOGO_MAX_BYTES, LOGO_MEDIA_TYPES, MODULE_STYLES, QUIET_ZONE_MAX, QUIET_ZONE_MIN, SCAN_BEEP_SOUNDS, TEMPLATES } from "../core/constants";


export { SCAN_BEEP_SOUNDS };
export type { ScanBeepSound } from "../core/constants";

export { EYE_STYLES, LOGO_MAX_BYTES, LOGO_MEDIA_TYPES, MODULE_STYLES, QUIET_ZONE_MAX, QUIET_ZONE_MIN };
export { DESIGN_MAX_BODY_BYTES };
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
    mediaType: z.enum(LOGO_MEDIA_TYPES).describe("image/png, image/jpeg or image/webp"),
  })
  .strict()
  .describe(`A PNG, JPEG or WebP file as base64, at most ${LOGO_MAX_BYTES / 1024} KB; drawn in the centre (error correction H)`);

/** The colours of a design: what the keyless sandbox accepts. */
export const designColoursShape = {
  foreground: hexColour.optional().describe("Module colour, #RRGGBB (default #000000); must be darker than the background"),
  background: hexColour.optional().describe("Background colour, #RRGGBB (default #FFFFFF)"),
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
    moduleStyle: z.enum(MODULE_STYLES).optional().describe("square (default), rounded or dots"),
    eyeStyle: z.enum(EYE_STYLES).optional().describe("Finder-eye style: square (default), rounded or circle"),
    quietZone: z.number().int().min(QUIET_ZONE_MIN).max(QUIET_ZONE_MAX).optional().describe(`Margin in modules, ${QUIET_ZONE_MIN} to ${QUIET_ZONE_MAX} (default 4)`),
    preset: presetName.optional().describe("Name of a brand preset saved in the workspace"),
  })
  .strict();
export type DesignInput = z.infer<typeof designSchema>;

export const fields = {
  title: text(TITLE_MAX).describe(`Human-readable name, at most ${TITLE_MAX} characters`),
  destinationUrl: httpUrl(URL_MAX_LENGTH).describe(`http(s) URL the code opens, at most ${URL_MAX_LENGTH} bytes once normalised (non-ASCII is percent-encoded)`),
  campaign: text(CAMPAIGN_MAX).describe(`Campaign label for scan roll-ups, at most ${CAMPAIGN_MAX} characters`),
  tags: z
    .array(text(TAG_MAX))
    .max(TAGS_MAX, `At most ${TAGS_MAX} tags`)
    .describe(`Up to ${TAGS_MAX} tags of at most ${TAG_MAX} characters`),
  dynamic: z.boolean().describe("true: encode a re-pointable, tracked dynamic link instead of the URL"),
  template: z.enum(TEMPLATES).describe("Frame: hexSeal (hexagon with wordmark) or soundSeal (dashed ring; forces dynamic)"),
  scanBeepSound: z.enum(SCAN_BEEP_SOUNDS).describe("Sound the service's app plays on scan; forces dynamic"),
  boostFrame: z.enum(BOOST_FRAMES).describe("Scan-to-earn frame with 3X or 5X points; overrides template"),
  design: designSchema.describe("Brand design: colours, logo, module and eye styles, quiet zone, or a saved preset; checked by two decoders before use"),
  codeId: ids.codeId,
  uniqueQRCodeID: ids.uniqueQRCodeID,
};

/** The fields of a new code, as svc.qr.create and the console take them. */
export const newCodeShape = {
  title: fields.title,
  destinationUrl: fields.destinationUrl,
  campaign: fields.campaign.optional(),
  tags: fields.tags.optional(),
  dynamic: fields.dynamic.optional(),
  template: fields.template.optional(),
  scanBeepSound: fields.scanBeepSound.optional(),
  boostFrame: fields.boostFrame.optional(),
  design: fields.design.optional(),
};

/** Title for a bulk row: host and path of the URL, shortened to the title limit. */
export function titleFromUrl(url: string): string {
  const u = new URL(url);
  const pathPart = u.pathname === "/" ? "" : u.pathname.replace(/\/+$/, "");
  const title = `${u.hostname.replace(/^www\./, "")}${pathPart}`;
  return title.length > TITLE_MAX ? `${title.slice(0, TITLE_MAX - 1)}…` : title;
}

export function uniqueTags(tags: readonly string[] | undefined): string[] {
  return [...new Set(tags ?? [])];
}
