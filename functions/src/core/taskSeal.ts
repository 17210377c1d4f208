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

/**
 * What a task is for. Each purpose seals under its own key, derived from TASK_SIGNING_KEY (HMAC of the
 * purpose's name), and a seal names its purpose and an expiry: a delivery task cannot be replayed as a job
 * step, nor an old task once its queue would have dropped it (review 4, I1).
 */
export type TaskPurpose = "webhookDelivery" | "catalogueJob";

/** How long a sealed task stays valid: a little past the longest its queue keeps retrying it (webhooks: 25 h). */
export const TASK_SEAL_TTL_MS: Record<TaskPurpose, number> = { webhookDelivery: 26 * 3_600_000, catalogueJob: 24 * 3_600_000 };

const purposeKey = (key: string, purpose: TaskPurpose) => createHmac("sha256", key).update(`task-seal:${purpose}`).digest();
const sealOf = (data: object, key: string, purpose: TaskPurpose) => createHmac("sha256", purposeKey(key, purpose)).update(canonical(data)).digest("base64url");

/** The payload with its purpose, expiry (`exp`, ms since the epoch) and seal added. */
export function sealTask<T extends object>(data: T, purpose: TaskPurpose, now = new Date(), key = signingKey()): T & { purpose: TaskPurpose; exp: number; seal: string } {
  const stamped = { ...data, purpose, exp: now.getTime() + TASK_SEAL_TTL_MS[purpose] };
  return { ...stamped, [SEAL_FIELD]: sealOf(stamped, key, purpose) } as T & { purpose: TaskPurpose; exp: number; seal: string };
}

/**
 * The payload without its seal, purpose and expiry when the seal is right for `purpose` and not expired at
 * `now`; null for anything else (unsealed, altered, another purpose's, expired, not an object).
 */
export function openTask(data: unknown, purpose: TaskPurpose, now = new Date(), key = signingKey()): Record<string, unknown> | null {
  if (!data || typeof data !== "object" || Array.isArray(data)) return null;
  const { [SEAL_FIELD]: seal, ...stamped } = data as Record<string, unknown>;
  if (typeof seal !== "string" || stamped.purpose !== purpose || typeof stamped.exp !== "number") return null;
  const expected = Buffer.from(sealOf(stamped, key, purpose));
  const given = Buffer.from(seal);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (stamped.exp <= now.getTime()) return null;
  const rest = { ...stamped };
  delete rest.purpose;
  delete rest.exp;
  return rest;
}
