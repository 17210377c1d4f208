// Device type, operating system and browser of a scan, from its User-Agent, by bowser (MIT, maintained).
// Only these three coarse names are kept; the User-Agent itself is never stored.
// Names come from closed sets (bowser's own browser and OS tables), so a rollup's breakdown maps hold a
// fixed number of keys whatever a client sends: a name outside them is "Other" (docs/data-model.md).
import Bowser from "bowser";
import { UNKNOWN } from "./classify";

export interface ScanDevice {
  /** mobile, tablet, desktop, tv, or unknown. */
  device: string;
  os: string;
  browser: string;
}

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

/** Whether a User-Agent names a browser and a system the parser knows (a random string does not). */
export function isRecognisedAgent(device: ScanDevice): boolean {
  return BROWSER_NAMES.has(device.browser) && device.browser !== "Generic" && OS_NAMES.has(device.os);
}

export function deviceOf(userAgent: string | undefined): ScanDevice {
  if (!userAgent) return { device: UNKNOWN, os: UNKNOWN, browser: UNKNOWN };
  let parsed: Bowser.Parser.ParsedResult;
  try {
    parsed = Bowser.parse(userAgent.slice(0, 512));
  } catch {
    return { device: UNKNOWN, os: UNKNOWN, browser: UNKNOWN };
  }
  const type = parsed.platform?.type ?? "";
  const os = name(parsed.os?.name, OS_NAMES);
  const device = DEVICE_TYPES.has(type) ? type : DESKTOP_SYSTEMS.has(os) ? "desktop" : UNKNOWN;
  return { device, os, browser: name(parsed.browser?.name, BROWSER_NAMES) };
}
