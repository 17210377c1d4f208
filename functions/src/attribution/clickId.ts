// The signed click id (docs/attribution.md, "The click id"): what the redirect appends to a tracked code's
// destination, and what the tracking API takes back. It carries everything attribution needs (the scan,
// workspace, code, the rule and A/B arm that answered, person or not, when), so the tracking API needs no
// per-scan record. Signed with HMAC-SHA256 under a key named by its id: keys rotate (CLICK_ID_KEYS), the
// first key signs, a retired one still verifies for KEY_RETIRED_VERIFY_DAYS after its retirement date.
//
// Token: base64url(payload) "." kid "." base64url(first 16 bytes of the MAC). Payload, binary:
//   version (1) | flags (1: 1 person, 2 rule, 4 variant) | time, seconds (4, big-endian) | rule (1) | variant (1)
//   | then scan id, workspace, code: each a length byte and its UTF-8 bytes.
import { createHmac, timingSafeEqual } from "node:crypto";
import { secretValue } from "../core/secrets";

export const CLICK_ID_VERSION = 1;
/** A retired key verifies this long after its retirement date: the longest attribution window. */
export const KEY_RETIRED_VERIFY_DAYS = 90;
/** The longest a click id may be (the tracking API's length limit). */
export const CLICK_ID_MAX = 300;
/** Clock skew tolerated between the instance that signed and the one that checks. */
const FUTURE_SKEW_MS = 5 * 60_000;
const MAC_BYTES = 16;
const KID_PATTERN = /^[A-Za-z0-9_-]{1,16}$/;

export interface ClickFacts {
  scanId: string;
  merchantId: string;
  codeId: string;
  /** The campaign rule that answered (null: the code's destination or no rules) and its A/B variant. */
  rule: { index: number | null; variant?: number };
  person: boolean;
  at: Date;
}

export interface ClickKey {
  kid: string;
  secret: string;
  /** Set on a retired key: it verifies until this date plus KEY_RETIRED_VERIFY_DAYS, and never signs. */
  retiredAt?: Date;
}

/**
 * The keys in CLICK_ID_KEYS: `kid=secret` entries separated by commas or white space, the first signing, a
 * retired one written `kid=secret@YYYY-MM-DD`. A value without "=" (the local stack's random one) is one key "k0".
 */
export function parseClickKeys(value: string): ClickKey[] {
  const trimmed = value.trim();
  if (!trimmed) return [];
  if (!trimmed.includes("=")) return [{ kid: "k0", secret: trimmed }];
  return trimmed.split(/[\s,]+/).map((entry) => {
    const eq = entry.indexOf("=");
    const kid = eq > 0 ? entry.slice(0, eq) : entry;
    const [secret, retired] = entry.slice(eq + 1).split("@");
    if (eq <= 0 || !KID_PATTERN.test(kid) || !secret) throw new Error(`CLICK_ID_KEYS: "${kid}" is not a key id=secret entry`);
    const retiredAt = retired ? new Date(`${retired}T00:00:00Z`) : undefined;
    if (retiredAt && isNaN(retiredAt.getTime())) throw new Error(`CLICK_ID_KEYS: key ${kid} has no valid retirement date`);
    return { kid, secret, ...(retiredAt ? { retiredAt } : {}) };
  });
}

let loaded: { raw: string; keys: ClickKey[] } | undefined;
/** The running function's keys (CLICK_ID_KEYS, core/secrets.ts), parsed once per value. */
export function clickKeys(): ClickKey[] {
  const raw = secretValue("CLICK_ID_KEYS");
  if (loaded?.raw !== raw) loaded = { raw, keys: parseClickKeys(raw) };
  if (!loaded.keys.length) throw new Error("CLICK_ID_KEYS has no value: set it in Secret Manager (docs/attribution.md)");
  return loaded.keys;
}

const macOf = (secret: string, kid: string, body: string) =>
  createHmac("sha256", createHmac("sha256", secret).update("click-id").digest()).update(`${kid}.${body}`).digest().subarray(0, MAC_BYTES);

function field(value: string): Buffer {
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length > 255) throw new Error("a click id field is at most 255 bytes");
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}

/** The click id of a scan, signed with the first of `keys`. */
export function signClickId(facts: ClickFacts, keys: ClickKey[] = clickKeys()): string {
  const key = keys.find((k) => !k.retiredAt);
  if (!key) throw new Error("CLICK_ID_KEYS holds no key that is not retired");
  const { index, variant } = facts.rule;
  const flags = (facts.person ? 1 : 0) | (index !== null ? 2 : 0) | (variant !== undefined ? 4 : 0);
  const head = Buffer.alloc(8);
  head.writeUInt8(CLICK_ID_VERSION, 0);
  head.writeUInt8(flags, 1);
  head.writeUInt32BE(Math.floor(facts.at.getTime() / 1000), 2);
  head.writeUInt8(index ?? 0, 6);
  head.writeUInt8(variant ?? 0, 7);
  const body = Buffer.concat([head, field(facts.scanId), field(facts.merchantId), field(facts.codeId)]).toString("base64url");
  return `${body}.${key.kid}.${macOf(key.secret, key.kid, body).toString("base64url")}`;
}

export type ClickIdRefusal = "malformed" | "forged" | "retired" | "expired" | "other_workspace";

/** Why a click id was refused, in a sentence for the caller. */
export const CLICK_ID_REFUSALS: Record<ClickIdRefusal, string> = {
  malformed: "clickId is not a click id of this service: pass the svc_sid value from the landing page's address as it came",
  forged: "clickId does not carry this service's signature: it was altered or not made by this service",
  retired: "clickId was signed with a key retired too long ago to be checked",
  expired: "clickId is older than this workspace's attribution window",
  other_workspace: "clickId belongs to another workspace's code",
};

function decodePayload(body: string): Omit<ClickFacts, "at"> & { at: Date } {
  const bytes = Buffer.from(body, "base64url");
  if (bytes.length < 11 || bytes.readUInt8(0) !== CLICK_ID_VERSION) throw new Error("malformed");
  const flags = bytes.readUInt8(1);
  const at = new Date(bytes.readUInt32BE(2) * 1000);
  const index = flags & 2 ? bytes.readUInt8(6) : null;
  const variant = flags & 4 ? bytes.readUInt8(7) : undefined;
  let offset = 8;
  const next = () => {
    if (offset >= bytes.length) throw new Error("malformed");
    const length = bytes.readUInt8(offset);
    if (offset + 1 + length > bytes.length) throw new Error("malformed");
    const value = bytes.subarray(offset + 1, offset + 1 + length).toString("utf8");
    offset += 1 + length;
    return value;
  };
  const [scanId, merchantId, codeId] = [next(), next(), next()];
  if (offset !== bytes.length || !scanId || !merchantId || !codeId) throw new Error("malformed");
  return { scanId, merchantId, codeId, rule: { index, ...(variant === undefined ? {} : { variant }) }, person: (flags & 1) === 1, at };
}

/**
 * The facts of a click id, checked: its signature under the key it names, that key not retired too long,
 * the workspace that asks, and its age within `windowDays` at `now`. Else the reason it is refused.
 */
export function verifyClickId(token: string, expect: { merchantId: string; windowDays: number; now: Date }, keys: ClickKey[] = clickKeys()): { facts: ClickFacts } | { refused: ClickIdRefusal } {
  const parts = token.length <= CLICK_ID_MAX ? token.split(".") : [];
  if (parts.length !== 3 || !/^[A-Za-z0-9_-]+$/.test(parts[0]) || !KID_PATTERN.test(parts[1]) || !/^[A-Za-z0-9_-]+$/.test(parts[2])) return { refused: "malformed" };
  const [body, kid, mac] = parts;
  const key = keys.find((k) => k.kid === kid);
  if (!key) return { refused: "forged" };
  const given = Buffer.from(mac, "base64url");
  const expected = macOf(key.secret, kid, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { refused: "forged" };
  if (key.retiredAt && expect.now.getTime() > key.retiredAt.getTime() + KEY_RETIRED_VERIFY_DAYS * 86_400_000) return { refused: "retired" };
  let facts: ClickFacts;
  try {
    facts = decodePayload(body);
  } catch {
    return { refused: "malformed" }; // signed by us yet undecodable: a version this instance does not know
  }
  if (facts.merchantId !== expect.merchantId) return { refused: "other_workspace" };
  const age = expect.now.getTime() - facts.at.getTime();
  if (age < -FUTURE_SKEW_MS) return { refused: "forged" };
  if (age > expect.windowDays * 86_400_000) return { refused: "expired" };
  return { facts };
}
