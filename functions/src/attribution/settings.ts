// Conversion tracking settings (docs/attribution.md, "Settings"): `trackConversions` per code (its link),
// per campaign (the code's campaign settings, campaigns/rules.ts) and per workspace; the first one set of
// the three decides. The workspace's also names the click id parameter, the attribution window and the
// first-party cookie on its own domains. The redirect reads the workspace's settings at most once a minute
// per instance (like its time zone), and only for a code whose link and campaign leave the choice to it.
import { z } from "zod";
import { withTimeout } from "../core/firebase";
import { LruMap } from "../core/lru";
import { readWorkspaceAttribution } from "../store/conversions";
import { CLICK_PARAM_PATTERN, DEFAULT_CLICK_PARAM } from "./append";

export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 90;

export const trackConversionsField = z.boolean().describe("Append a signed click id (svc_sid) to this destination for conversion tracking (docs/attribution.md)");

export const WorkspaceAttributionSchema = z.strictObject({
  trackConversions: z.boolean().optional().describe("Track conversions of every code whose own and campaign settings do not say (default false)"),
  clickIdParam: z.string().regex(CLICK_PARAM_PATTERN, "clickIdParam is 1 to 32 letters, digits, _ and -, starting with a letter").optional().describe(`The destination parameter the click id goes in (default ${DEFAULT_CLICK_PARAM})`),
  windowDays: z.number().int(`windowDays is a whole number of days, 1 to ${MAX_WINDOW_DAYS}`).min(1, `windowDays is 1 to ${MAX_WINDOW_DAYS} days`).max(MAX_WINDOW_DAYS, `windowDays is 1 to ${MAX_WINDOW_DAYS} days`).optional().describe(`Days after a scan its click id is accepted (default ${DEFAULT_WINDOW_DAYS})`),
  firstPartyCookie: z.boolean().optional().describe("On the workspace's own domains, also set the click id as a first-party cookie (needs your consent basis)"),
});
export type WorkspaceAttribution = z.output<typeof WorkspaceAttributionSchema>;

/** The settings as the REST and console routes answer them: every field, defaults filled in. */
export const TrackingSettingsSchema = z.object({ trackConversions: z.boolean(), clickIdParam: z.string(), windowDays: z.number().int(), firstPartyCookie: z.boolean() }).meta({ title: "TrackingSettings" });

export interface ResolvedAttribution {
  trackConversions: boolean;
  clickIdParam: string;
  windowDays: number;
  firstPartyCookie: boolean;
  timeZone: string;
}

/** A workspace's settings as stored, with their defaults; what is stored outside the schema is ignored. */
export function resolveWorkspaceAttribution(stored: unknown, timeZone: string): ResolvedAttribution {
  const parsed = WorkspaceAttributionSchema.safeParse(stored ?? {});
  const s = parsed.success ? parsed.data : {};
  return { trackConversions: s.trackConversions ?? false, clickIdParam: s.clickIdParam ?? DEFAULT_CLICK_PARAM, windowDays: s.windowDays ?? DEFAULT_WINDOW_DAYS, firstPartyCookie: s.firstPartyCookie ?? false, timeZone };
}

export async function workspaceAttribution(merchantId: string): Promise<ResolvedAttribution> {
  const { attribution, timeZone } = await readWorkspaceAttribution(merchantId);
  return resolveWorkspaceAttribution(attribution, timeZone);
}

const SETTINGS_TTL_MS = 60_000;
/** How long a scan waits for its workspace's settings the first time this instance needs them: past it, no click id. */
export const SETTINGS_WAIT_MS = 300;
const remembered = new LruMap<string, { value: Promise<ResolvedAttribution | undefined>; at: number; settled?: ResolvedAttribution }>(10_000);

/**
 * The workspace's settings on this instance: the last ones read, re-read in the background once a minute
 * old (a change applies within the minute, and no scan waits for a re-read); the first read is waited for
 * at most SETTINGS_WAIT_MS. Undefined when none is known in time.
 */
export async function rememberedWorkspaceAttribution(merchantId: string, now: number): Promise<ResolvedAttribution | undefined> {
  const cached = remembered.get(merchantId);
  if (!cached || now - cached.at >= SETTINGS_TTL_MS) {
    const entry: { value: Promise<ResolvedAttribution | undefined>; at: number; settled?: ResolvedAttribution } = { value: workspaceAttribution(merchantId).catch(() => undefined), at: now, settled: cached?.settled };
    void entry.value.then((v) => {
      if (v) entry.settled = v;
      else if (!entry.settled && remembered.get(merchantId) === entry) remembered.delete(merchantId); // read again by the next scan
    });
    remembered.set(merchantId, entry);
    if (cached?.settled) return cached.settled;
  }
  const entry = remembered.get(merchantId)!;
  return entry.settled ?? withTimeout(entry.value, SETTINGS_WAIT_MS, "attribution settings read").catch(() => undefined);
}
