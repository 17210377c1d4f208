// Signing secrets: made here, shown once, stored sealed (AES-256-GCM under a key from Secret Manager, bound
// to their workspace and endpoint), and used to sign deliveries the Standard Webhooks way.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { sha256 } from "../core/hash";
import { secretValue } from "../core/secrets";
import type { StoredSecret } from "../store/webhooks";

/** The sealing key's text; never empty (an empty key would seal every secret under a known key). */
function sealingKeyText(): string {
  const text = secretValue("WEBHOOK_SECRET_KEY");
  if (!text) throw new Error("WEBHOOK_SECRET_KEY has no value: set it in Secret Manager (docs/deploy.md)");
  return text;
}

const PREFIX = "whsec_";

/** What a sealed secret is bound to: its workspace and endpoint. */
export const secretBinding = (w: { merchantId: string; webhookId: string }) => `${w.merchantId}/${w.webhookId}`;

/** A new secret in the Standard Webhooks form: whsec_ and 24 random bytes in base64. */
export function newSigningSecret(): string {
  return PREFIX + randomBytes(24).toString("base64");
}

// Any text Secret Manager holds becomes a 32-byte key; rotating the key means re-sealing (docs/webhooks.md).
const sealingKey = (keyText: string) => sha256(keyText);

/** Seals a secret for one endpoint: a sealed secret copied to another endpoint does not open. */
export function sealSecret(secret: string, boundTo: string, keyText = sealingKeyText()): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(keyText), iv);
  cipher.setAAD(Buffer.from(boundTo, "utf8"));
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
}

export function openSecret(sealed: string, boundTo: string, keyText = sealingKeyText()): string {
  const raw = Buffer.from(sealed.slice(3), "base64url");
  const decipher = createDecipheriv("aes-256-gcm", sealingKey(keyText), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(boundTo, "utf8"));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}

/** Secrets that still sign at `now`: the current one and, during a rotation's overlap, the previous one. */
export function signingSecrets(secrets: readonly StoredSecret[], now: Date): StoredSecret[] {
  return secrets.filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now.getTime());
}

/**
 * The secrets after a rotation: the fresh one, and the one it replaces (the newest still signing), which
 * keeps signing until `until` at the latest. Any older secret still in an earlier overlap ends now, so at
 * most two secrets are ever live, however often an endpoint is rotated.
 */
export function afterRotation(secrets: readonly StoredSecret[], fresh: StoredSecret, now: Date, until: Date): StoredSecret[] {
  const previous = signingSecrets(secrets, now).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
  if (!previous) return [fresh];
  return [fresh, { ...previous, expiresAt: previous.expiresAt && previous.expiresAt < until ? previous.expiresAt : until }];
}

/** The webhook-signature header: one `v1,<base64 HMAC-SHA256>` per secret, space separated. */
export function signatureHeader(secrets: readonly string[], msgId: string, timestampSeconds: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
      return `v1,${createHmac("sha256", key).update(`${msgId}.${timestampSeconds}.${body}`).digest("base64")}`;
    })
    .join(" ");
}
