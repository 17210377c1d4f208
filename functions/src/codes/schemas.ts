// What callers see of a code, its design and a brand preset (codes/model.ts: publicCode, publicDesign,
// publicBrandPreset), declared once for every surface that answers them: the tools' outputSchema
// (mcp/outputs.ts) and the console's route responses (console/schemas.ts).
import { z } from "zod";
import { BOOST_FRAMES, EYE_STYLES, MODULE_STYLES, SCAN_BEEP_SOUNDS, TEMPLATES } from "../core/constants";

// Times are ISO 8601; a code is a draft until it is published.
export const isoTime = z.string();
export const draftStatus = z.enum(["draft", "published"]);

/** A design as callers see it: the logo is described, its stored file stays server-side. */
export const PublicDesignSchema = z.object({
  foreground: z.string(),
  background: z.string(),
  moduleStyle: z.enum(MODULE_STYLES),
  eyeStyle: z.enum(EYE_STYLES),
  quietZone: z.number(),
  preset: z.string().nullable(),
  logo: z.object({ mediaType: z.literal("image/png"), width: z.number(), height: z.number(), sha256: z.string() }).nullable(),
});

/** The fields of a code as callers see it. */
export const publicCodeShape = {
  codeId: z.string(),
  uniqueQRCodeID: z.string(),
  title: z.string(),
  destinationUrl: z.string(),
  campaign: z.string().nullable(),
  tags: z.array(z.string()),
  dynamic: z.boolean(),
  dynamicLink: z.string().nullable().describe("Tracked, re-pointable link (dynamic codes)"),
  // The domain the link is on (docs/domains.md); the same path on the service's own host keeps working.
  domainId: z.string().nullable(),
  template: z.enum(TEMPLATES).nullable(),
  scanBeepSound: z.enum(SCAN_BEEP_SOUNDS).nullable(),
  boostFrame: z.enum(BOOST_FRAMES).nullable(),
  design: PublicDesignSchema.nullable(),
  qrImageUrl: z.string(),
  qrSvgUrl: z.string(),
  qrPdfUrl: z.string().describe("Vector PDF; add &size=<mm> or &distance=<m>"),
  status: draftStatus,
  source: z.enum(["tool", "bulk", "sandbox-claim", "console"]),
  createdAt: isoTime,
  updatedAt: isoTime,
};
export const PublicCodeSchema = z.object(publicCodeShape);

/** A saved brand preset (console Settings, svc.brand.list_presets). */
export const PublicBrandPresetSchema = z.object({ name: z.string(), design: PublicDesignSchema.nullable(), updatedAt: isoTime });
