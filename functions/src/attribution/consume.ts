// The scan consumer's side of conversions (docs/attribution.md, "Counting"): a message on the arrivals
// topic with the `conv` attribute names conversions the tracking API recorded (attribution/service.ts).
// The consumer instance reads them in one transaction, and those not counted yet are marked counted and
// added to the code's and the workspace's day rollups in that instance's own shards (store/rollups.ts), as
// its scans are: the same single writer, no new hot document, and a redelivery adds nothing.
import { z } from "zod";
import type { Transaction } from "firebase-admin/firestore";
import { getConfig } from "../core/config";
import { conversionCounts, conversionRuleKey, countConversionsOnce, uncountedConversions, type Conversion } from "../store/conversions";
import { addInto, addRollupWrite, whenShardsFree, type Counts, type RollupTarget } from "../store/rollups";
import { campaignKey } from "../store/scans";
import { Timestamp } from "firebase-admin/firestore";
import { askToCount } from "./service";
import { streamConversions } from "../store/scanStream";

/** A conversion message as the tracking API publishes it. */
const ConversionMessage = z.strictObject({
  m: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  ids: z.array(z.string().regex(/^[lsr]~[0-9a-f]{40}$/)).min(1).max(50),
});

export class PoisonConversion extends Error {}

export function decodeConversionMessage(data: Buffer): z.output<typeof ConversionMessage> {
  let raw: unknown;
  try {
    raw = JSON.parse(data.toString("utf8"));
  } catch {
    throw new PoisonConversion("a conversion message that is not JSON");
  }
  const parsed = ConversionMessage.safeParse(raw);
  if (!parsed.success) throw new PoisonConversion(`an invalid conversion message: ${z.prettifyError(parsed.error).slice(0, 300)}`);
  return parsed.data;
}

const expiry = (day: string) => Timestamp.fromMillis(Date.parse(`${day}T00:00:00Z`) + (getConfig().scanRetentionDays + 1) * 86_400_000);

/** The rollup changes of counted conversions: per code and day (with `cr` per rule key), per workspace and day (with `cc` per campaign). */
export function conversionChanges(merchantId: string, fresh: Conversion[]): Array<{ target: RollupTarget; counts: Counts }> {
  const changes = new Map<string, { target: RollupTarget; counts: Counts }>();
  const add = (target: RollupTarget, counts: Counts) => {
    const key = `${target.kind}/${target.baseId}`;
    const change = changes.get(key) ?? { target, counts: {} };
    addInto(change.counts, counts);
    changes.set(key, change);
  };
  for (const c of fresh) {
    const { l, s, v } = conversionCounts(c) as { l?: number; s?: number; v?: Counts };
    const top: Counts = { ...(l ? { cl: l } : {}), ...(s ? { cs: s } : {}), ...(v ? { cv: v } : {}) };
    const own: Counts = { ...(l ? { l } : {}), ...(s ? { s } : {}), ...(v ? { v } : {}) };
    const common = { day: c.day, timeZone: c.timeZone, expiresAt: expiry(c.day) };
    const a = c.attribution;
    add({ merchantId, kind: "scanDays", baseId: c.day, fields: common }, { ...top, ...(a ? { cc: { [campaignKey(a.campaign)]: own } } : {}) });
    if (a) add({ merchantId, kind: "codeDays", baseId: `${a.codeId}~${c.day}`, fields: { ...common, codeId: a.codeId, k: campaignKey(a.campaign) } }, { ...top, cr: { [conversionRuleKey(a.rule)]: own } });
  }
  return [...changes.values()];
}

/** Counts the conversions a message names, once each; answers how many were counted now. */
export async function consumeConversions(data: Buffer): Promise<number> {
  const { m, ids } = decodeConversionMessage(data);
  const fresh = await countConversionsOnce(m, ids, async (tx: Transaction, conversions) => {
    const changes = conversionChanges(m, conversions);
    await whenShardsFree(changes.map((c) => c.target), (now) => {
      for (const { target, counts } of changes) addRollupWrite(tx, target, counts, now);
    });
  });
  // Counted: each goes to the conversion stream (BigQuery), off the count's path (docs/scan-stream.md, "Conversions").
  await streamConversions(m, fresh);
  return fresh.length;
}

/** How long a recorded conversion may wait for its message before the sweep hands it to the consumer again. */
export const UNCOUNTED_AFTER_MS = 60_000;

/** Conversions recorded over a minute ago and still not counted (their publish failed): published again. */
export async function sweepUncounted(now = new Date()): Promise<number> {
  const found = await uncountedConversions(new Date(now.getTime() - UNCOUNTED_AFTER_MS));
  const byWorkspace = new Map<string, string[]>();
  for (const { merchantId, id } of found) byWorkspace.set(merchantId, [...(byWorkspace.get(merchantId) ?? []), id]);
  for (const [merchantId, ids] of byWorkspace) for (let i = 0; i < ids.length; i += 50) await askToCount(merchantId, ids.slice(i, i + 50));
  return found.length;
}
