// Device type, operating system and browser of a scan, from its User-Agent, by bowser (MIT, maintained).
// Only these three coarse names are kept; the User-Agent itself is never stored.
import Bowser from "bowser";
import { UNKNOWN } from "./classify";

export interface ScanDevice {
  /** mobile, tablet, desktop, tv, or unknown. */
  device: string;
  os: string;
  browser: string;
}

const DEVICE_TYPES = new Set(["mobile", "tablet", "desktop", "tv"]);
/** Systems that only run on computers, for UAs that name no platform type (ChromeOS, some Linux builds). */
const DESKTOP_SYSTEMS = new Set(["Windows", "macOS", "Chrome OS", "Linux"]);

/** Names become map keys in the rollups: short, printable, bounded. */
function name(value: string | undefined): string {
  const v = (value ?? "").replace(/[^\p{L}\p{N} ._+-]/gu, "").trim().slice(0, 40);
  return v || UNKNOWN;
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
  const os = name(parsed.os?.name);
  const device = DEVICE_TYPES.has(type) ? type : DESKTOP_SYSTEMS.has(os) ? "desktop" : UNKNOWN;
  return { device, os, browser: name(parsed.browser?.name) };
}
