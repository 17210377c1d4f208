// Records one scan: classifies it (person, repeat, or a machine with its reason), places it, and writes it
// in one batch (store/scans.ts). Decisions that must hold across instances are made by Firestore itself:
// a scan's event id is a keyed hash of the visitor, so `create` tells whether this visitor already scanned
// this code today (unique) or used up this minute's allowance (repeat). The instance only remembers what
// it learnt, to skip attempts it knows would fail.
//
// One address cannot mint people by varying its User-Agent at random: a User-Agent that does not name a
// browser and a system the parser knows stands for no one in particular, so all such scans from one address
// are one visitor (docs/data-model.md, "Who counts as a person").
//
// Privacy: the visitor is HMAC(daily secret, code, address, User-Agent), truncated to 96 bits. The address
// and User-Agent are never stored; the secret of a date is destroyed 48 hours after the date begins (UTC),
// after which no hash of that day can be recomputed or linked to another day's.
import { createHmac } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { getConfig } from "../core/config";
import { logScanNotRecorded } from "../core/log";
import { isAlreadyExists, writeScan, type ScanFacts } from "../store/scans";
import { loadOrCreateSecret } from "../store/scanSecrets";
import { botReason } from "./classify";
import { deviceOf, isRecognisedAgent, type ScanDevice } from "./device";
import { localMoment } from "./localTime";

/** After its first scan of the day, a visitor's scans of one code beyond this many per clock minute are repeats. */
export const REPEATS_PER_MINUTE = 3;
/** What stands in a visitor's identity for any User-Agent the parser cannot name (random strings included). */
const UNRECOGNISED_AGENT = "\u0000unrecognised";
/** Scans per second, seen by one instance for one workspace, above which it spreads its rollup writes. */
const HOT_SCANS_PER_SECOND = 25;
/** Rollup shards a hot workspace-day may use (shard 0 is the day's own document). */
export const ROLLUP_SHARDS = 8;

export interface CodeIdentity {
  merchantId: string;
  codeId: string;
  campaign: string | null;
  timeZone: string;
}

interface ScanRequest {
  method: string;
  headers: IncomingHttpHeaders;
  /** The client's address (http/clientAddress.ts); used for the visitor hash and the place, then dropped. */
  address: string;
  place: ScanFacts["place"];
  at: Date;
  source: "redirect" | "app";
}

// ---- the daily secrets, cached per instance ----

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

/** Who a scan is from, before hashing: the address and, when it names a known browser, the User-Agent. */
export function visitorKey(address: string, userAgent: string | undefined, device: ScanDevice): string {
  return `${address}\n${isRecognisedAgent(device) ? (userAgent ?? "") : UNRECOGNISED_AGENT}`;
}

export async function visitorHash(date: string, codeId: string, who: string): Promise<string> {
  return createHmac("sha256", await secretOf(date)).update(`${codeId}\n${who}`).digest("base64url").slice(0, 16);
}

// ---- what this instance learnt about visitors (bounded, forgets after a day) ----

interface VisitorState {
  /** The local day whose unique (first) event exists. */
  firstDay?: string;
  /** The minute whose slots below `nextSlot` are known taken. */
  minute: number;
  nextSlot: number;
}

const VISITORS_MAX = 50_000;
const visitors = new Map<string, VisitorState>();

function stateOf(key: string): VisitorState {
  let state = visitors.get(key);
  if (!state) {
    state = { minute: -1, nextSlot: 0 };
    if (visitors.size >= VISITORS_MAX) visitors.delete(visitors.keys().next().value!);
    visitors.set(key, state);
  }
  return state;
}

// ---- per-instance rate of each workspace, to decide when to spread rollup writes ----

const rates = new Map<string, { second: number; count: number; hotUntil: number }>();

function rollupShard(merchantId: string, nowMs: number): number {
  const second = Math.floor(nowMs / 1000);
  let r = rates.get(merchantId);
  if (!r) {
    if (rates.size > 10_000) rates.clear();
    r = { second, count: 0, hotUntil: 0 };
    rates.set(merchantId, r);
  }
  if (r.second !== second) {
    r.second = second;
    r.count = 0;
  }
  if (++r.count > HOT_SCANS_PER_SECOND) r.hotUntil = nowMs + 10_000;
  return r.hotUntil > nowMs ? Math.floor(Math.random() * ROLLUP_SHARDS) : 0;
}

export type ScanOutcome = { counted: true; unique: boolean } | { counted: false; reason: string };

/** Classifies and records one scan of a known code; resolves once it is durable. */
export async function recordScan(code: CodeIdentity, uniqueQRCodeID: string, request: ScanRequest): Promise<ScanOutcome> {
  const { day, hour } = localMoment(request.at, code.timeZone);
  const ua = request.headers["user-agent"];
  const device = deviceOf(typeof ua === "string" ? ua : undefined);
  const facts: ScanFacts = {
    ...code,
    uniqueQRCodeID,
    at: request.at,
    day,
    hour,
    place: request.place,
    device,
    source: request.source,
    retentionDays: getConfig().scanRetentionDays,
  };
  const shard = rollupShard(code.merchantId, request.at.getTime());
  const reason = botReason(request.method, request.headers);
  if (reason) {
    await writeScan(facts, { kind: "bot", reason }, shard);
    return { counted: false, reason };
  }

  const visitor = await visitorHash(day, code.codeId, visitorKey(request.address, typeof ua === "string" ? ua : undefined, device));
  const state = stateOf(`${code.codeId}~${visitor}`);
  if (state.firstDay !== day) {
    state.firstDay = day; // claimed before the await: this visitor's concurrent scans go to the minute slots
    try {
      await writeScan(facts, { kind: "human", unique: true, eventId: `u~${day}~${code.codeId}~${visitor}` }, shard);
      return { counted: true, unique: true };
    } catch (error) {
      if (!isAlreadyExists(error)) {
        state.firstDay = undefined;
        throw error;
      }
    }
  }
  const minute = Math.floor(request.at.getTime() / 60_000);
  if (state.minute !== minute) {
    state.minute = minute;
    state.nextSlot = 0;
  }
  while (state.nextSlot < REPEATS_PER_MINUTE) {
    const slot = state.nextSlot++;
    try {
      await writeScan(facts, { kind: "human", unique: false, eventId: `m~${minute}~${code.codeId}~${visitor}~${slot}` }, shard);
      return { counted: true, unique: false };
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }
  await writeScan(facts, { kind: "repeat" }, shard);
  return { counted: false, reason: "repeat" };
}

/** recordScan for the redirect: a failure is logged, never turned into a failed redirect. */
export async function recordScanSafely(code: CodeIdentity, uniqueQRCodeID: string, request: ScanRequest): Promise<ScanOutcome | undefined> {
  try {
    return await recordScan(code, uniqueQRCodeID, request);
  } catch (error) {
    logScanNotRecorded({ merchantId: code.merchantId, codeId: code.codeId }, error);
    return undefined;
  }
}
