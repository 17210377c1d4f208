// The service's own Cloud Tasks payloads carry an HMAC, checked by the task functions before anything
// runs. Deployed, only Cloud Tasks may invoke them (Cloud Run IAM); the seal keeps a task inert when that
// is not enough: an invoker binding granted too widely, a shared service account, or a request sent straight
// to the function's URL on the local stack, which has no IAM at all.
//
// Each purpose has its own secret (TASK_KEYS_WEBHOOK_DELIVERY, TASK_KEYS_CATALOGUE_JOB), bound only to the
// functions that queue or run its tasks (core/secrets.ts), so a function that can only queue deliveries
// holds no key that forges a job step. A secret is a key ring: `id:key` entries separated by commas, the
// first sealing, each later one still opening the seals made under it until the date after its `@`
// (`2:<new>,1:<old>@2026-12-01T00:00:00Z`); a bare value is one key of id 0. docs/deploy.md says how to rotate.
import { createHmac, timingSafeEqual } from "node:crypto";
import { secretValue, type SecretName } from "./secrets";

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

/**
 * What a task is for. Each purpose seals under its own secret (and, should two secrets hold the same
 * value, under a key derived for the purpose), and a seal names its purpose, key id and expiry: a delivery
 * task cannot be replayed as a job step, nor an old task once its queue would have dropped it (review 4, I1).
 */
export type TaskPurpose = "webhookDelivery" | "catalogueJob";

const PURPOSE_SECRET: Record<TaskPurpose, SecretName> = { webhookDelivery: "TASK_KEYS_WEBHOOK_DELIVERY", catalogueJob: "TASK_KEYS_CATALOGUE_JOB" };

/** How long a sealed task stays valid: a little past the longest its queue keeps retrying it (webhooks: 25 h). */
export const TASK_SEAL_TTL_MS: Record<TaskPurpose, number> = { webhookDelivery: 26 * 3_600_000, catalogueJob: 24 * 3_600_000 };

interface RingKey {
  id: string;
  key: string;
  /** An older key opens seals until this time (ms); the sealing key has none. */
  until: number | null;
}

const ENTRY = /^([A-Za-z0-9_-]{1,16}):([^@,\s]+)(?:@(\S+))?$/;
/** Shorter keys are refused: a ring is random values of at least 16 bytes (hex or base64). */
const KEY_CHARS_MIN = 22;

/** The ring in a secret's value; throws (naming the secret, never its value) when it is malformed. */
export function parseKeyRing(value: string, name = "task key ring"): RingKey[] {
  const text = value.trim();
  if (!text) throw new Error(`${name} has no value: set it in Secret Manager (docs/deploy.md)`);
  const bare = !text.includes(":") && !text.includes(",");
  const ring = bare
    ? [{ id: "0", key: text, until: null }]
    : text.split(",").map((entry, i) => {
        const m = ENTRY.exec(entry.trim());
        if (!m) throw new Error(`${name}: entry ${i + 1} is not id:key or id:key@date`);
        const until = m[3] === undefined ? null : Date.parse(m[3]);
        if (until !== null && !Number.isFinite(until)) throw new Error(`${name}: entry ${i + 1} has no readable date after @`);
        if (i === 0 && until !== null) throw new Error(`${name}: the first key seals, so it takes no date`);
        if (i > 0 && until === null) throw new Error(`${name}: entry ${i + 1} is an older key and needs @date, until when it still opens`);
        return { id: m[1], key: m[2], until };
      });
  if (ring.some((k) => k.key.length < KEY_CHARS_MIN)) throw new Error(`${name}: a key is shorter than ${KEY_CHARS_MIN} characters`);
  if (new Set(ring.map((k) => k.id)).size !== ring.length) throw new Error(`${name}: two keys share an id`);
  return ring;
}

const ringOf = (purpose: TaskPurpose) => secretValue(PURPOSE_SECRET[purpose]);

const purposeKey = (key: string, purpose: TaskPurpose) => createHmac("sha256", key).update(`task-seal:${purpose}`).digest();
const sealOf = (data: object, key: string, purpose: TaskPurpose) => createHmac("sha256", purposeKey(key, purpose)).update(canonical(data)).digest("base64url");

/** The payload with its purpose, key id (`kid`), expiry (`exp`, ms since the epoch) and seal added. */
export function sealTask<T extends object>(data: T, purpose: TaskPurpose, now = new Date(), ring = ringOf(purpose)): T & { purpose: TaskPurpose; kid: string; exp: number; seal: string } {
  const [current] = parseKeyRing(ring, PURPOSE_SECRET[purpose]);
  const stamped = { ...data, purpose, kid: current.id, exp: now.getTime() + TASK_SEAL_TTL_MS[purpose] };
  return { ...stamped, [SEAL_FIELD]: sealOf(stamped, current.key, purpose) } as T & { purpose: TaskPurpose; kid: string; exp: number; seal: string };
}

/**
 * The payload without its seal, purpose, key id and expiry when the seal is right for `purpose` under the
 * key it names, that key still opens at `now`, and the seal has not expired; null for anything else
 * (unsealed, altered, another purpose's or secret's, a retired or unknown key, expired, not an object).
 */
export function openTask(data: unknown, purpose: TaskPurpose, now = new Date(), ring = ringOf(purpose)): Record<string, unknown> | null {
  if (!data || typeof data !== "object" || Array.isArray(data)) return null;
  const { [SEAL_FIELD]: seal, ...stamped } = data as Record<string, unknown>;
  // A seal made before key ids (under TASK_SIGNING_KEY) names none: it is key 0's (docs/deploy.md, the move).
  const kid = stamped.kid === undefined ? "0" : stamped.kid;
  if (typeof seal !== "string" || stamped.purpose !== purpose || typeof stamped.exp !== "number" || typeof kid !== "string") return null;
  const key = parseKeyRing(ring, PURPOSE_SECRET[purpose]).find((k) => k.id === kid);
  if (!key || (key.until !== null && now.getTime() >= key.until)) return null;
  const expected = Buffer.from(sealOf(stamped, key.key, purpose));
  const given = Buffer.from(seal);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (stamped.exp <= now.getTime()) return null;
  const rest = { ...stamped };
  delete rest.purpose;
  delete rest.kid;
  delete rest.exp;
  return rest;
}
