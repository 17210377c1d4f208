// Who a scan is from, as a keyed hash: HMAC(daily secret, code, client, User-Agent when it reads as a real
// browser), truncated to 96 bits. The address and User-Agent are never stored or published; the secret of a
// date is destroyed 48 hours after the date begins (UTC), after which no hash of that day can be recomputed
// or linked to another day's. The code in the key is the id in its /qr/ address (uniqueQRCodeID): the
// redirect knows it at arrival, before it has read which code that is.
import { createHmac } from "node:crypto";
import { rateLimitSubject } from "../core/clientAddress";
import { loadOrCreateSecret } from "../store/scanSecrets";

/** What stands in a visitor's identity for any User-Agent the parser cannot name (random strings included). */
const UNRECOGNISED_AGENT = "\u0000unrecognised";

const secrets = new Map<string, Promise<Buffer>>();

function secretOf(date: string): Promise<Buffer> {
  let secret = secrets.get(date);
  if (!secret) {
    secret = loadOrCreateSecret(date);
    secret.catch(() => secrets.delete(date)); // retry on the next scan
    secrets.set(date, secret);
    if (secrets.size > 4) secrets.delete(secrets.keys().next().value!);
  }
  return secret;
}

/**
 * Who a scan is from, before hashing: the client (an IPv4 address, or an IPv6 address's /64, which one
 * host can fill with addresses of its own choosing, as the rate limits treat it) and, when it reads as a
 * real browser, the User-Agent.
 */
export function visitorKey(address: string, userAgent: string | undefined, recognised: boolean): string {
  return `${rateLimitSubject(address)}\n${recognised ? (userAgent ?? "") : UNRECOGNISED_AGENT}`;
}

export async function visitorHash(date: string, code: string, who: string): Promise<string> {
  return createHmac("sha256", await secretOf(date)).update(`${code}\n${who}`).digest("base64url").slice(0, 16);
}

/** The client alone (its address or /64), hashed like a visitor: whose newcomers a code's budget counts. */
export const clientHash = (date: string, code: string, address: string) => visitorHash(date, code, rateLimitSubject(address));
