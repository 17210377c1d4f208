// The service's own Cloud Tasks payloads carry an HMAC under TASK_SIGNING_KEY, checked by the task
// functions before anything runs. Deployed, only Cloud Tasks may invoke them (Cloud Run IAM); the seal
// keeps a task inert when that is not enough: an invoker binding granted too widely, a shared service
// account, or a request sent straight to the function's URL on the local stack, which has no IAM at all.
import { createHmac, timingSafeEqual } from "node:crypto";
import { secretValue } from "./secrets";

const SEAL_FIELD = "seal";

/** JSON with object keys sorted, so the seal does not depend on how a payload's keys were ordered. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function signingKey(): string {
  const key = secretValue("TASK_SIGNING_KEY");
  if (!key) throw new Error("TASK_SIGNING_KEY has no value: set it in Secret Manager (docs/deploy.md)");
  return key;
}

const sealOf = (data: object, key: string) => createHmac("sha256", key).update(canonical(data)).digest("base64url");

/** The payload with its seal added. */
export function sealTask<T extends object>(data: T, key = signingKey()): T & { seal: string } {
  return { ...data, [SEAL_FIELD]: sealOf(data, key) } as T & { seal: string };
}

/** The payload without its seal when the seal is right; null for anything else (unsealed, altered, not an object). */
export function openTask(data: unknown, key = signingKey()): Record<string, unknown> | null {
  if (!data || typeof data !== "object" || Array.isArray(data)) return null;
  const { [SEAL_FIELD]: seal, ...rest } = data as Record<string, unknown>;
  if (typeof seal !== "string") return null;
  const expected = Buffer.from(sealOf(rest, key));
  const given = Buffer.from(seal);
  return given.length === expected.length && timingSafeEqual(given, expected) ? rest : null;
}
