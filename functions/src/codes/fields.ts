// Field rules for QR codes, shared by the tools, the bulk endpoint and the sandbox claim.
import { z } from "zod";
import { httpUrl, text } from "../core/validation";
import { CAMPAIGN_MAX, DESIGN_MAX_BODY_BYTES, TAG_MAX, TAGS_MAX, TITLE_MAX, URL_MAX_LENGTH } from "../core/limits";
import { ids } from "../core/ids";
import { designSchema } from "../designs/fields";
import { BOOST_FRAMES, EYE_STYLES, LOGO_MAX_BYTES, LOGO_MEDIA_TYPES, MODULE_STYLES, QUIET_ZONE_MAX, QUIET_ZONE_MIN, SCAN_BEEP_SOUNDS, TEMPLATES } from "../core/constants";


export { SCAN_BEEP_SOUNDS };
export type { ScanBeepSound } from "../core/constants";

export { EYE_STYLES, LOGO_MAX_BYTES, LOGO_MEDIA_TYPES, MODULE_STYLES, QUIET_ZONE_MAX, QUIET_ZONE_MIN };
export { DESIGN_MAX_BODY_BYTES };
// A design's rules live with designs/ (designs/fields.ts); codes carry one.
export { designColoursShape, designSchema, presetName, type DesignInput } from "../designs/fields";

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
  domainId: ids.domainId
    .nullable()
    .describe("Active domain for a dynamic link; null: none; omitted: default"),
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
  domainId: fields.domainId.optional(),
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
