// Device type, operating system and browser of a scan, from its User-Agent, by bowser (MIT, maintained).
// Only these three coarse names are kept; the User-Agent itself is never stored.
// Names come from closed sets (bowser's own browser and OS tables), so a rollup's breakdown maps hold a
// fixed number of keys whatever a client sends: a name outside them is "Other" (docs/data-model.md).
import Bowser from "bowser";
import { UNKNOWN } from "./classify";

// The record's shape lives with the store (the layer below); this module fills it.
export type { ScanDevice } from "../store/scans";
import type { ScanDevice } from "../store/scans";

/** A parsed name outside the closed sets below. */
export const OTHER = "Other";
export const DEVICE_TYPES = new Set(["mobile", "tablet", "desktop", "tv"]);
export const BROWSER_NAMES: ReadonlySet<string> = new Set(Object.values(Bowser.BROWSER_MAP));
export const OS_NAMES: ReadonlySet<string> = new Set(Object.values(Bowser.OS_MAP));
/** Systems that only run on computers, for UAs that name no platform type (ChromeOS, some Linux builds). */
const DESKTOP_SYSTEMS = new Set(["Windows", "macOS", "Chrome OS", "Linux"]);

/** Names become map keys in the rollups: one of the closed set, "Other" for any other name, or unknown. */
function name(value: string | undefined, known: ReadonlySet<string>): string {
  const v = (value ?? "").trim();
  if (!v) return UNKNOWN;
  return known.has(v) ? v : OTHER;
}

/**
 * Whether a User-Agent reads as a real browser: a browser and a system the parser knows, and a version
 * of that browser. Random strings shaped like a browser's (a made-up product before "Safari/537.36")
 * parse as a versionless Safari or Android Browser; in-app browsers on iOS (Facebook, Instagram) carry no
 * browser version but do carry iOS's version and build token, so they count too, as do TV browsers that
 * name their system's version.
 */
function recognised(parsed: Bowser.Parser.ParsedResult, device: ScanDevice, userAgent: string): boolean {
  if (!BROWSER_NAMES.has(device.browser) || device.browser === "Generic" || !OS_NAMES.has(device.os)) return false;
  if (parsed.browser?.version) return true;
  if (device.device === "tv") return Boolean(parsed.os?.version); // TV browsers name their system's version only
  return device.os === "iOS" && Boolean(parsed.os?.version) && IOS_BUILD.test(userAgent);
}
const IOS_BUILD = /\bMobile\/[0-9A-Z]{5,8}\b/;

const unknownAgent = () => ({ device: { device: UNKNOWN, os: UNKNOWN, browser: UNKNOWN }, recognised: false });

/** A User-Agent's coarse names, and whether it reads as a real browser (scans/record.ts, who counts as a person). */
export function agentOf(userAgent: string | undefined): { device: ScanDevice; recognised: boolean } {
  if (!userAgent) return unknownAgent();
  const ua = userAgent.slice(0, 512);
  let parsed: Bowser.Parser.ParsedResult;
  try {
    parsed = Bowser.parse(ua);
  } catch {
    return unknownAgent();
  }
  const type = parsed.platform?.type ?? "";
  const os = name(parsed.os?.name, OS_NAMES);
  const device = { device: DEVICE_TYPES.has(type) ? type : DESKTOP_SYSTEMS.has(os) ? "desktop" : UNKNOWN, os, browser: name(parsed.browser?.name, BROWSER_NAMES) };
  return { device, recognised: recognised(parsed, device, ua) };
}

export function deviceOf(userAgent: string | undefined): ScanDevice {
  return agentOf(userAgent).device;
}
