// Conversions (docs/attribution.md, "Data model"): leads, sales and reversals the tracking API records,
// one document each, counted into the code's and workspace's day rollups by the scan consumer alone
// (attribution/consume.ts), never by the API. Documents:
//   workspaces/{m}/conversions/l~{hash}   a lead: one per click id (or customer) and event name
//   workspaces/{m}/conversions/s~{hash}   a sale: one per invoice id; `reversed` grows with its reversals
//   workspaces/{m}/conversions/r~{hash}   a reversal (refund, cancel): one per reversal id
//   workspaces/{m}/conversions/k~{hash}   an Idempotency-Key: which conversion it made
//   workspaces/{m}/customers/{hash}       a customer's lead: the click their later sales follow
// Each is written once by its request (a sale again by each reversal of it, and by the consumer once,
// setting `counted`): none takes sustained writes. Rollup fields (store/rollups.ts MAP_CAPS): `cl` leads,
// `cs` sales, `cv` revenue per currency (minor units, net of reversals), `cr` per campaign rule key, `cc`
// per campaign (the workspace's day only).
import { Timestamp, type DocumentData, type Transaction } from "firebase-admin/firestore";
import { db, withTimeout } from "../core/firebase";
import { AppError } from "../core/errors";
import { DEFAULT_TIME_ZONE } from "../core/constants";
import { COLLECTIONS } from "./collections";
import { countOps } from "./opCounter";
import { readRollupDocs, type Counts } from "./rollups";

export type ConversionKind = "lead" | "sale" | "reversal";
export type ConversionSource = "api" | "shopify" | "till";

/** Where a conversion is counted: the click that won it. Null: no click known (counted for the workspace only). */
export interface Attribution {
  codeId: string;
  campaign: string | null;
  /** The rule that answered the click (null: the destination) and its A/B variant. */
  rule: { index: number | null; variant?: number };
  scanId: string;
  person: boolean;
  clickAt: Date;
}

export interface Conversion {
  id: string;
  kind: ConversionKind;
  at: Date;
  /** The workspace's local day of `at`: the rollup day it is counted on. */
  day: string;
  timeZone: string;
  source: ConversionSource;
  attribution: Attribution | null;
  /** Lead: its event name. */
  eventName?: string;
  /** Sale and reversal: minor units of `currency` (a reversal's is what it takes back, positive). */
  amount?: number;
  currency?: string;
  /** Sale: minor units reversed so far. */
  reversed?: number;
  /** Reversal: the sale it reverses, and whether it reversed what was left of it (the sale no longer counts). */
  saleId?: string;
  closesSale?: boolean;
  reason?: "refund" | "cancel";
  /** The keyed hash of the merchant's customer id (never the id). */
  customer?: string;
  counted: boolean;
}

export type ConversionFigures = { scans: number; people: number; leads: number; sales: number; revenue: Record<string, number> };

/** How long conversion documents are kept (TTL): a refund or a repeat of a sale a year later still finds it. */
export const CONVERSION_RETENTION_DAYS = 400;

const conversions = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("conversions");
const customers = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("customers");

function attributionData(a: Attribution | null): DocumentData | null {
  if (!a) return null;
  return { codeId: a.codeId, campaign: a.campaign, rule: a.rule.index, ...(a.rule.variant === undefined ? {} : { variant: a.rule.variant }), scanId: a.scanId, person: a.person, clickAt: Timestamp.fromDate(a.clickAt) };
}

function attributionOf(d: DocumentData | null | undefined): Attribution | null {
  if (!d) return null;
  return {
    codeId: String(d.codeId),
    campaign: typeof d.campaign === "string" ? d.campaign : null,
    rule: { index: typeof d.rule === "number" ? d.rule : null, ...(typeof d.variant === "number" ? { variant: d.variant } : {}) },
    scanId: String(d.scanId),
    person: d.person === true,
    clickAt: (d.clickAt as Timestamp).toDate(),
  };
}

function conversionData(c: Conversion): DocumentData {
  const { id: _id, at, attribution, ...rest } = c;
  return {
    ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
    at: Timestamp.fromDate(at),
    attribution: attributionData(attribution),
    expiresAt: Timestamp.fromMillis(at.getTime() + CONVERSION_RETENTION_DAYS * 86_400_000),
  };
}

function conversionOf(id: string, d: DocumentData): Conversion {
  return {
    id,
    kind: d.kind as ConversionKind,
    at: (d.at as Timestamp).toDate(),
    day: String(d.day),
    timeZone: String(d.timeZone),
    source: d.source as ConversionSource,
    attribution: attributionOf(d.attribution as DocumentData | null),
    ...(typeof d.eventName === "string" ? { eventName: d.eventName } : {}),
    ...(typeof d.amount === "number" ? { amount: d.amount } : {}),
    ...(typeof d.currency === "string" ? { currency: d.currency } : {}),
    ...(typeof d.reversed === "number" ? { reversed: d.reversed } : {}),
    ...(typeof d.saleId === "string" ? { saleId: d.saleId } : {}),
    ...(typeof d.closesSale === "boolean" ? { closesSale: d.closesSale } : {}),
    ...(d.reason === "refund" || d.reason === "cancel" ? { reason: d.reason } : {}),
    ...(typeof d.customer === "string" ? { customer: d.customer } : {}),
    counted: d.counted === true,
  };
}

/**
 * Creates a lead or sale once: nothing is written when its id (from its invoice id, or its click and event)
 * or its Idempotency-Key's document exists already. Answers the conversion as stored, and whether it was new.
 */
export async function createConversion(merchantId: string, conversion: Conversion, idempotencyKeyHash?: string): Promise<{ conversion: Conversion; created: boolean }> {
  const ref = conversions(merchantId).doc(conversion.id);
  const keyRef = idempotencyKeyHash ? conversions(merchantId).doc(`k~${idempotencyKeyHash}`) : undefined;
  return db().runTransaction(async (tx) => {
    const [snap, keySnap] = await tx.getAll(ref, ...(keyRef ? [keyRef] : []));
    countOps({ reads: keyRef ? 2 : 1 });
    const earlier = keySnap?.exists ? String(keySnap.get("target")) : snap.exists ? conversion.id : undefined;
    if (earlier) {
      const found = earlier === conversion.id ? snap : await tx.get(conversions(merchantId).doc(earlier));
      if (found.exists) return { conversion: conversionOf(found.id, found.data()!), created: false };
    }
    tx.create(ref, conversionData(conversion));
    if (keyRef) tx.create(keyRef, { target: conversion.id, expiresAt: Timestamp.fromMillis(conversion.at.getTime() + CONVERSION_RETENTION_DAYS * 86_400_000) });
    countOps({ writes: keyRef ? 2 : 1 });
    return { conversion, created: true };
  });
}

/**
 * Records a reversal of a sale once (by its id): takes `amount` (what is left, when undefined) off the sale,
 * refused when the sale is unknown or has less left. Answers the reversal and whether it was new.
 */
export async function createReversal(merchantId: string, saleId: string, reversal: Omit<Conversion, "attribution" | "amount" | "currency" | "saleId" | "closesSale"> & { amount?: number }): Promise<{ conversion: Conversion; created: boolean }> {
  const saleRef = conversions(merchantId).doc(saleId);
  const ref = conversions(merchantId).doc(reversal.id);
  return db().runTransaction(async (tx) => {
    const [saleSnap, snap] = await tx.getAll(saleRef, ref);
    countOps({ reads: 2 });
    if (snap.exists) return { conversion: conversionOf(snap.id, snap.data()!), created: false };
    if (!saleSnap.exists) throw new AppError("NOT_FOUND", "No sale with this invoiceId in this workspace: nothing was reversed");
    const sale = conversionOf(saleId, saleSnap.data()!);
    const left = (sale.amount ?? 0) - (sale.reversed ?? 0);
    if (left <= 0) throw new AppError("CONFLICT", "This sale is already reversed in full: nothing was changed");
    const amount = reversal.amount ?? left;
    if (amount > left) throw new AppError("VALIDATION_FAILED", `amount is more than what is left of the sale (${left} minor units of ${sale.currency ?? "?"}): nothing was reversed`);
    const created: Conversion = { ...reversal, attribution: sale.attribution, amount, currency: sale.currency!, saleId, closesSale: amount === left, ...(sale.customer ? { customer: sale.customer } : {}) };
    tx.update(saleRef, { reversed: (sale.reversed ?? 0) + amount });
    tx.create(ref, conversionData(created));
    countOps({ writes: 2 });
    return { conversion: created, created: true };
  });
}

/** A conversion by id (a repeat's publish, the figures' tests). */
export async function readConversion(merchantId: string, id: string): Promise<Conversion | undefined> {
  const snap = await conversions(merchantId).doc(id).get();
  countOps({ reads: 1 });
  return snap.exists ? conversionOf(snap.id, snap.data()!) : undefined;
}

// ---- the workspace's settings (attribution/settings.ts validates them) ----

/** The workspace's `attribution` field as stored (opaque here) and its time zone. */
export async function readWorkspaceAttribution(merchantId: string): Promise<{ attribution: unknown; timeZone: string }> {
  const snap = await db().collection(COLLECTIONS.workspaces).doc(merchantId).get();
  countOps({ reads: 1 });
  return { attribution: snap.get("attribution") as unknown, timeZone: (snap.get("timeZone") as string | undefined) || DEFAULT_TIME_ZONE };
}

export async function writeWorkspaceAttribution(merchantId: string, attribution: Record<string, unknown>): Promise<void> {
  await db().collection(COLLECTIONS.workspaces).doc(merchantId).update({ attribution });
  countOps({ writes: 1 });
}

// ---- customers ----

/** The click a customer's lead was attributed to, if the workspace saw their lead. */
export async function readCustomerLead(merchantId: string, customerHash: string): Promise<Attribution | null> {
  const snap = await customers(merchantId).doc(customerHash).get();
  countOps({ reads: 1 });
  return snap.exists ? attributionOf(snap.get("attribution") as DocumentData | null) : null;
}

/** Keeps the later click as the customer's lead (the last click before the lead wins); answers the one kept. */
export async function setCustomerLead(merchantId: string, customerHash: string, attribution: Attribution, at: Date): Promise<Attribution> {
  const ref = customers(merchantId).doc(customerHash);
  return db().runTransaction(async (tx: Transaction) => {
    const snap = await tx.get(ref);
    countOps({ reads: 1 });
    const kept = snap.exists ? attributionOf(snap.get("attribution") as DocumentData | null) : null;
    if (kept && kept.clickAt.getTime() > attribution.clickAt.getTime()) return kept;
    tx.set(ref, { attribution: attributionData(attribution), leadAt: Timestamp.fromDate(at), expiresAt: Timestamp.fromMillis(at.getTime() + CONVERSION_RETENTION_DAYS * 86_400_000) });
    countOps({ writes: 1 });
    return attribution;
  });
}

// ---- counting (the scan consumer only: attribution/consume.ts) ----

/** The key of a rule's answer in `cr` (as store/scans.ts ruleKey: "d", "3", "3.1"). */
export const conversionRuleKey = (rule: Attribution["rule"]) => (rule.index === null ? "d" : rule.variant === undefined ? String(rule.index) : `${rule.index}.${rule.variant}`);

/** What one conversion adds to its rollups: leads, sales (a reversal that closes its sale takes one off) and revenue. */
export function conversionCounts(c: Conversion): Counts {
  if (c.kind === "lead") return { l: 1 };
  const sign = c.kind === "reversal" ? -1 : 1;
  const sales = c.kind === "sale" ? 1 : c.closesSale ? -1 : 0;
  return { ...(sales ? { s: sales } : {}), v: { [c.currency!]: sign * (c.amount ?? 0) } };
}

/**
 * Reads the conversions in a transaction and hands those not counted yet to `count` (which adds their
 * rollup changes to the transaction), marking them counted in it: a redelivery, or a second consumer
 * instance, finds them counted and adds nothing.
 */
export async function countConversionsOnce(merchantId: string, ids: string[], count: (tx: Transaction, fresh: Conversion[]) => Promise<void>): Promise<Conversion[]> {
  const refs = [...new Set(ids)].map((id) => conversions(merchantId).doc(id));
  let fresh: Conversion[] = [];
  await db().runTransaction(
    async (tx) => {
      const snaps = await withTimeout(tx.getAll(...refs), 5_000, "the consumer's conversion read");
      fresh = snaps.filter((s) => s.exists && s.get("counted") !== true && !s.id.startsWith("k~")).map((s) => conversionOf(s.id, s.data()!));
      countOps({ reads: refs.length, writes: fresh.length });
      if (!fresh.length) return;
      for (const c of fresh) tx.update(conversions(merchantId).doc(c.id), { counted: true });
      await count(tx, fresh);
    },
    { maxAttempts: 3 },
  );
  return fresh;
}

/** Conversions recorded and not counted within `olderThanMs` (a publish that failed): the maintenance job hands them to the consumer. */
export async function uncountedConversions(olderThan: Date, limit = 200): Promise<Array<{ merchantId: string; id: string }>> {
  const snap = await db().collectionGroup("conversions").where("counted", "==", false).where("at", "<=", Timestamp.fromDate(olderThan)).limit(limit).get();
  countOps({ reads: Math.max(1, snap.size) });
  return snap.docs.map((d) => ({ merchantId: d.ref.parent.parent!.id, id: d.id }));
}

// ---- the figures (read side) ----

const emptyFigures = (): ConversionFigures => ({ scans: 0, people: 0, leads: 0, sales: 0, revenue: {} });
const num = (v: unknown) => (typeof v === "number" ? v : 0);

function addConversionCounts(into: ConversionFigures, c: unknown): void {
  if (!c || typeof c !== "object") return;
  const counts = c as { l?: unknown; s?: unknown; v?: Record<string, unknown> };
  into.leads += num(counts.l);
  into.sales += num(counts.s);
  for (const [currency, amount] of Object.entries(counts.v ?? {})) if (currency !== "Other") into.revenue[currency] = (into.revenue[currency] ?? 0) + num(amount);
}

/** Rollup documents one figures read takes at most (folded days first, then shards). */
const FIGURES_BUDGET = 2_000;

/**
 * Scans, people, leads, sales and revenue per currency (never summed across currencies) of a code (its
 * codeDays: with byRule and byArm), a campaign (the workspace's days' `cc` and `cp`), or the workspace, for
 * local days from..to. Revenue is net of reversals, in minor units.
 */
export async function readConversionFigures(
  workspaceId: string,
  q: { codeId?: string; campaignId?: string; from: string; to: string },
): Promise<{ total: ConversionFigures; byDay: Array<{ day: string } & ConversionFigures>; byRule: Array<{ ruleId: string | null } & ConversionFigures>; byArm: Array<{ arm: string } & ConversionFigures> }> {
  const kind = q.codeId ? "codeDays" : "scanDays";
  const { docs } = await readRollupDocs(workspaceId, kind, { ...(q.codeId ? { codeId: q.codeId } : {}), first: q.from, last: q.to }, FIGURES_BUDGET);
  const total = emptyFigures();
  const days = new Map<string, ConversionFigures>();
  const rules = new Map<string, ConversionFigures>();
  const campaignKey = q.campaignId === undefined ? undefined : `c:${q.campaignId}`;
  for (const d of docs) {
    const day = String(d.day);
    const figures = days.get(day) ?? emptyFigures();
    days.set(day, figures);
    const parts: ConversionFigures[] = [total, figures];
    if (campaignKey !== undefined && !q.codeId) {
      const people = (d.cp as Record<string, { n?: number; u?: number }> | undefined)?.[campaignKey];
      const conv = (d.cc as Record<string, unknown> | undefined)?.[campaignKey];
      for (const f of parts) {
        f.scans += num(people?.n);
        f.people += num(people?.u);
        addConversionCounts(f, conv);
      }
      continue;
    }
    for (const f of parts) {
      f.scans += num(d.n);
      f.people += num(d.u);
      addConversionCounts(f, { l: d.cl, s: d.cs, v: d.cv });
    }
    if (!q.codeId) continue;
    const keys = new Set([...Object.keys((d.ru as object | undefined) ?? {}), ...Object.keys((d.cr as object | undefined) ?? {})]);
    for (const key of keys) {
      if (key === "Other") continue;
      const r = rules.get(key) ?? emptyFigures();
      rules.set(key, r);
      // Per rule only people's scans are kept (`ru`): a rule's scans and people are both that count.
      const scans = num((d.ru as Record<string, unknown> | undefined)?.[key]);
      r.scans += scans;
      r.people += scans;
      addConversionCounts(r, (d.cr as Record<string, unknown> | undefined)?.[key]);
    }
  }
  const byRuleMap = new Map<string | null, ConversionFigures>();
  const byArm: Array<{ arm: string } & ConversionFigures> = [];
  for (const [key, f] of [...rules.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const ruleId = key === "d" ? null : key.split(".")[0];
    const into = byRuleMap.get(ruleId) ?? emptyFigures();
    byRuleMap.set(ruleId, into);
    into.scans += f.scans;
    into.people += f.people;
    addConversionCounts(into, { l: f.leads, s: f.sales, v: f.revenue });
    if (key.includes(".")) byArm.push({ arm: key, ...f });
  }
  return {
    total,
    byDay: [...days.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, f]) => ({ day, ...f })),
    byRule: [...byRuleMap.entries()].map(([ruleId, f]) => ({ ruleId, ...f })),
    byArm,
  };
}

// ---- in-store discount codes (attribution/discounts.ts) ----
//   workspaces/{m}/discountCodes/{CODE}     one code: its QR code, free / given (to which click) / redeemed
//   workspaces/{m}/discountClaims/{scanId}  which discount code a click was shown (a reload shows the same)

const discountCodes = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("discountCodes");
const discountClaims = (merchantId: string) => db().collection(COLLECTIONS.workspaces).doc(merchantId).collection("discountClaims");
const expiresIn = (now: Date) => Timestamp.fromMillis(now.getTime() + CONVERSION_RETENTION_DAYS * 86_400_000);

/** Adds free discount codes to a QR code's pool; answers those added (one the workspace has already is skipped). */
export async function addDiscountCodeDocs(merchantId: string, codeId: string, codes: string[], now: Date): Promise<string[]> {
  const added: string[] = [];
  for (let i = 0; i < codes.length; i += 250) {
    const chunk = codes.slice(i, i + 250);
    const refs = chunk.map((c) => discountCodes(merchantId).doc(c));
    const snaps = await db().getAll(...refs);
    const batch = db().batch();
    snaps.forEach((snap, k) => {
      if (snap.exists) return;
      batch.create(refs[k], { codeId, state: "free", r: Math.random(), addedAt: Timestamp.fromDate(now), expiresAt: expiresIn(now) });
      added.push(chunk[k]);
    });
    await batch.commit();
    countOps({ reads: refs.length, writes: snaps.filter((s) => !s.exists).length });
  }
  return added;
}

/**
 * The discount code shown to one click: the one it was shown before, else a free one of the QR code's pool
 * (picked at a random point of the pool, so people scanning at once rarely want the same one), marked
 * given to that click. Undefined: the pool is empty.
 */
export async function claimDiscountCode(merchantId: string, codeId: string, click: Attribution, now: Date): Promise<string | undefined> {
  const claimRef = discountClaims(merchantId).doc(click.scanId);
  return db().runTransaction(async (tx) => {
    const claim = await tx.get(claimRef);
    if (claim.exists) return String(claim.get("code"));
    const pool = discountCodes(merchantId).where("codeId", "==", codeId).where("state", "==", "free").orderBy("r");
    const at = Math.random();
    let found = await tx.get(pool.where("r", ">=", at).limit(1));
    if (found.empty) found = await tx.get(pool.limit(1));
    countOps({ reads: 2 + found.size });
    if (found.empty) return undefined;
    const doc = found.docs[0];
    tx.update(doc.ref, { state: "given", givenAt: Timestamp.fromDate(now), attribution: attributionData(click) });
    tx.create(claimRef, { code: doc.id, expiresAt: expiresIn(now) });
    countOps({ writes: 2 });
    return doc.id;
  });
}

/**
 * Marks a discount code redeemed by `invoiceId` and answers the click it was given to (null: never handed
 * out after a scan, a sale of the workspace only): again for the same invoice (a retried till call),
 * refused for another one.
 */
export async function redeemDiscountCode(merchantId: string, code: string, invoiceId: string, now: Date): Promise<Attribution | null> {
  const ref = discountCodes(merchantId).doc(code);
  return db().runTransaction(async (tx) => {
    const snap = await tx.get(ref);
    countOps({ reads: 1 });
    if (!snap.exists) throw new AppError("NOT_FOUND", "No such discount code in this workspace: nothing was recorded");
    const state = snap.get("state") as string;
    if (state === "redeemed" && snap.get("invoiceId") !== invoiceId) throw new AppError("CONFLICT", "This discount code was redeemed already, with another invoice: it counts once");
    if (state !== "redeemed") {
      tx.update(ref, { state: "redeemed", invoiceId, redeemedAt: Timestamp.fromDate(now) });
      countOps({ writes: 1 });
    }
    return attributionOf(snap.get("attribution") as DocumentData | undefined);
  });
}
