// Token material for the OAuth server: opaque random strings, stored only as SHA-256 hashes (like keys).
// Access and refresh tokens carry their grant id in clear so one round trip reads token and grant together.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { sha256 } from "../core/hash";


export const randomId = (prefix: string, bytes = 12) => `${prefix}${randomBytes(bytes).toString("hex")}`;
export const newGrantId = () => randomId("grant_");
export const newSecret = () => randomBytes(32).toString("base64url");
export { sha256Hex } from "../core/hash";

/** Read back by auth/oauthAccess.ts (parseGrantToken), which authenticates the callers that carry one. */
export function newGrantToken(kind: "at" | "rt", grantId: string): string {
  return `svc_${kind}_${grantId}.${newSecret()}`;
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge, compared in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(sha256(verifier, "base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
