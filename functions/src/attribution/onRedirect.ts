// What the redirect adds to a scan's 302 for conversion tracking (docs/attribution.md, "On the redirect"):
// the signed click id on the destination, and on a merchant's own domain, when the workspace asks, the
// same id as a first-party cookie. Machines get neither. Nothing here fails a scan: a setting not known in
// time, or a key that cannot sign, leaves the destination as it was.
import { logError } from "../core/log";
import type { Link } from "../store/codes";
import { appendClickId, DEFAULT_CLICK_PARAM } from "./append";
import { signClickId } from "./clickId";
import { discountPagePath } from "./discounts";
import { rememberedWorkspaceAttribution } from "./settings";

export interface ScanClick {
  uniqueQRCodeID: string;
  scanId: string;
  /** Whether the classifier saw a person (machines get no click id). */
  person: boolean;
  rule: { index: number | null; variant?: number };
  at: Date;
  /** The merchant's host the scan came to (redirect/customHost.ts), if any. */
  customHost?: string;
}

/** The code's own choice, else its campaign's; undefined: the workspace decides. */
function ownChoice(link: Link): boolean | undefined {
  const campaign = (link.campaignRules as { trackConversions?: boolean } | undefined)?.trackConversions;
  return link.trackConversions ?? campaign;
}

/** The Set-Cookie value: for the scan host's parent domain (scan.example.com: example.com), else the host alone. */
function cookieOf(name: string, token: string, host: string, windowDays: number): string {
  const labels = host.split(".");
  const domain = labels.length >= 3 ? `; Domain=${labels.slice(1).join(".")}` : "";
  return `${name}=${token}; Max-Age=${windowDays * 86_400}; Path=/${domain}; Secure; SameSite=Lax`;
}

/**
 * The location to answer with, and the cookie to set, for a scan of `link` answered with `location`.
 * `viaDiscountPage` false: the click id goes on `location` itself even for a code handing out discount codes
 * (a password's pass-through: the discount page would link on to the code's destination, not the password's).
 */
export async function trackedAnswer(link: Link, location: string, click: ScanClick, viaDiscountPage = true): Promise<{ location: string; cookie?: string }> {
  if (!click.person) return { location };
  // A code handing out discount codes is tracked whatever the settings: its page needs the click id.
  const own = link.discounts ? true : ownChoice(link);
  if (own === false) return { location };
  try {
    const settings = await rememberedWorkspaceAttribution(link.merchantId, click.at.getTime());
    if (!(own ?? settings?.trackConversions ?? false)) return { location };
    const token = signClickId({ scanId: click.scanId, merchantId: link.merchantId, codeId: link.codeId, rule: click.rule, person: true, at: click.at });
    const param = settings?.clickIdParam ?? DEFAULT_CLICK_PARAM;
    const tracked = link.discounts && viaDiscountPage ? discountPagePath(click.uniqueQRCodeID, param, token) : appendClickId(location, param, token);
    return { location: tracked, ...(click.customHost && settings?.firstPartyCookie ? { cookie: cookieOf(param, token, click.customHost, settings.windowDays) } : {}) };
  } catch (error) {
    logError("attribution.click_id_failed", "a tracked scan was answered without its click id", error, { codeId: link.codeId });
    return { location };
  }
}
