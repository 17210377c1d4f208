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

export const fields = {
  title: text(TITLE_MAX),
  destinationUrl: httpUrl(URL_MAX_LENGTH).describe("http(s) URL the code opens; the limit counts bytes once percent-encoded"),
  campaign: text(CAMPAIGN_MAX),
  tags: z
    .array(text(TAG_MAX))
    .max(TAGS_MAX, `At most ${TAGS_MAX} tags`),
  dynamic: z.boolean().describe("Encode a tracked, re-pointable link instead of the URL"),
  template: z.enum(TEMPLATES).describe("Frame; soundSeal forces dynamic"),
  scanBeepSound: z.enum(SCAN_BEEP_SOUNDS).describe("Played by the app on scan; forces dynamic"),
  boostFrame: z.enum(BOOST_FRAMES).describe("Scan-to-earn points frame; overrides template"),
  design: designSchema.describe("Brand design, checked by two decoders before use"),
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
