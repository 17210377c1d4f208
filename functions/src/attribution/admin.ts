// Conversion tracking settings, read and written for the REST routes and tools (docs/attribution.md,
// "Settings"): the workspace's (its document's `attribution` field) and a dynamic code's own choice (its link).
import { AppError } from "../core/errors";
import { findCode, readLink, setLinkAttribution } from "../store/codes";
import { readWorkspaceAttribution, writeWorkspaceAttribution } from "../store/conversions";
import { resolveWorkspaceAttribution, WorkspaceAttributionSchema, type WorkspaceAttribution } from "./settings";

export type TrackingSettings = { trackConversions: boolean; clickIdParam: string; windowDays: number; firstPartyCookie: boolean };

export async function readTrackingSettings(merchantId: string): Promise<TrackingSettings> {
  const { attribution, timeZone } = await readWorkspaceAttribution(merchantId);
  const { timeZone: _zone, ...settings } = resolveWorkspaceAttribution(attribution, timeZone);
  return settings;
}

/** Sets the fields given; the others keep their stored values. */
export async function writeTrackingSettings(merchantId: string, change: WorkspaceAttribution): Promise<TrackingSettings> {
  const { attribution } = await readWorkspaceAttribution(merchantId);
  const stored = WorkspaceAttributionSchema.safeParse(attribution ?? {});
  const next = { ...(stored.success ? stored.data : {}), ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) };
  await writeWorkspaceAttribution(merchantId, next);
  return readTrackingSettings(merchantId);
}

async function dynamicCode(merchantId: string, codeId: string) {
  const code = await findCode(merchantId, { codeId });
  if (!code.dynamic) throw new AppError("VALIDATION_FAILED", "Conversion tracking needs a dynamic code: a static code encodes its destination itself, so nothing can be added to it");
  return code;
}

export async function setCodeTracking(merchantId: string, codeId: string, trackConversions: boolean | null): Promise<{ codeId: string; trackConversions: boolean | null }> {
  const code = await dynamicCode(merchantId, codeId);
  await setLinkAttribution(code.uniqueQRCodeID, { trackConversions });
  return { codeId, trackConversions };
}

export async function codeTracking(merchantId: string, codeId: string): Promise<{ codeId: string; trackConversions: boolean | null }> {
  const code = await dynamicCode(merchantId, codeId);
  return { codeId, trackConversions: (await readLink(code.uniqueQRCodeID))?.trackConversions ?? null };
}

/** Marks a code as handing out discount codes (attribution/discounts.ts): its scans then go to the discount page. */
export async function enableDiscounts(merchantId: string, codeId: string): Promise<string> {
  const code = await dynamicCode(merchantId, codeId);
  await setLinkAttribution(code.uniqueQRCodeID, { discounts: true });
  return code.uniqueQRCodeID;
}
