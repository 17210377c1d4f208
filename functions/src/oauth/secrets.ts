// Token material for the OAuth server: opaque random strings, stored only as SHA-256 hashes (like keys).
// Access and refresh tokens carry their grant id in clear so one round trip reads token and grant together.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { sha256 } from "../core/hash";

export const ACCESS_TOKEN_PREFIX = "svc_at_";
export const REFRESH_TOKEN_PREFIX = "svc_rt_";
const GRANT_TOKEN = /^svc_(at|rt)_(grant_[0-9a-f]{24})\.([A-Za-z0-9_-]{43})$/;

export const randomId = (prefix: string, bytes = 12) => `${prefix}${randomBytes(bytes).toString("hex")}`;
export const newGrantId = () => randomId("grant_");
export const newSecret = () => randomBytes(32).toString("base64url");
export { sha256Hex } from "../core/hash";

export function newGrantToken(kind: "at" | "rt", grantId: string): string {
  return `svc_${kind}_${grantId}.${newSecret()}`;
}

/** The grant a well-formed token names, or undefined for anything else. */
export function parseGrantToken(token: string, kind: "at" | "rt"): { grantId: string } | undefined {
  const match = GRANT_TOKEN.exec(token);
  return match && match[1] === kind ? { grantId: match[2] } : undefined;
}

export function looksLikeAccessToken(credential: string): boolean {
  return credential.startsWith(ACCESS_TOKEN_PREFIX);
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge, compared in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(sha256(verifier, "base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
