// Field rules for QR codes, shared by the tools, the bulk endpoint and the sandbox claim.
import { z } from "zod";
import { httpUrl, text } from "../core/validation";
import { URL_MAX_LENGTH } from "../core/limits";
import { ids } from "../core/ids";
import { BOOST_FRAMES, SCAN_BEEP_SOUNDS, TEMPLATES } from "../core/constants";

export const TITLE_MAX = 200;
export const CAMPAIGN_MAX = 100;
export const TAG_MAX = 50;
export const TAGS_MAX = 20;

export { SCAN_BEEP_SOUNDS };
export type ScanBeepSound = (typeof SCAN_BEEP_SOUNDS)[number];

export const fields = {
  title: text(TITLE_MAX).describe(`Human-readable name, at most ${TITLE_MAX} characters`),
  destinationUrl: httpUrl(URL_MAX_LENGTH).describe(`http(s) URL the code opens, at most ${URL_MAX_LENGTH} characters`),
  campaign: text(CAMPAIGN_MAX).describe(`Campaign label for scan roll-ups, at most ${CAMPAIGN_MAX} characters`),
  tags: z
    .array(text(TAG_MAX))
    .max(TAGS_MAX, `At most ${TAGS_MAX} tags`)
    .describe(`Up to ${TAGS_MAX} tags of at most ${TAG_MAX} characters`),
  dynamic: z.boolean().describe("true: encode a re-pointable, tracked dynamic link instead of the URL"),
  template: z.enum(TEMPLATES).describe("Frame: hexSeal (hexagon with wordmark) or soundSeal (dashed ring; forces dynamic)"),
  scanBeepSound: z.enum(SCAN_BEEP_SOUNDS).describe("Sound the service's app plays on scan; forces dynamic"),
  boostFrame: z.enum(BOOST_FRAMES).describe("Scan-to-earn frame with 3X or 5X points; overrides template"),
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
