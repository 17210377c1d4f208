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
  windowDays: z.number().int().min(1).max(MAX_WINDOW_DAYS).optional().describe(`Days after a scan its click id is accepted (default ${DEFAULT_WINDOW_DAYS})`),
  firstPartyCookie: z.boolean().optional().describe("On the workspace's own domains, also set the click id as a first-party cookie (needs your consent basis)"),
});
export type WorkspaceAttribution = z.output<typeof WorkspaceAttributionSchema>;

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
/** How long a scan waits for its workspace's settings when its code leaves the choice to them: past it, no click id. */
export const SETTINGS_WAIT_MS = 300;
const remembered = new LruMap<string, { value: Promise<ResolvedAttribution | undefined>; at: number }>(10_000);

/** The workspace's settings as of at most a minute ago on this instance; undefined when not read in time. */
export function rememberedWorkspaceAttribution(merchantId: string, now: number): Promise<ResolvedAttribution | undefined> {
  const cached = remembered.get(merchantId);
  if (!cached || now - cached.at >= SETTINGS_TTL_MS) {
    const value = workspaceAttribution(merchantId).catch(() => undefined);
    remembered.set(merchantId, { value, at: now });
    void value.then((v) => v === undefined && remembered.delete(merchantId));
  }
  return withTimeout(remembered.get(merchantId)!.value, SETTINGS_WAIT_MS, "attribution settings read").catch(() => undefined);
}
