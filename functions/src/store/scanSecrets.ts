// The daily secrets that unique-scanner hashes are keyed with: scanSecrets/{YYYY-MM-DD}: secret (32 random
// bytes), expiresAt. One per calendar date, shared by every instance (created by the first that needs it),
// and destroyed 48 hours after the date begins in UTC, by scanMaintenance (every 10 minutes; TTL as a backstop).
// Once a date's secret is gone, nothing can recompute or link the hashes made with it.
import { randomBytes } from "node:crypto";
import { Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { countOps } from "./opCounter";

const SECRET_LIFETIME_MS = 48 * 60 * 60 * 1000;
const ALREADY_EXISTS = 6;

const secrets = () => db().collection(COLLECTIONS.scanSecrets);

const secretExpiry = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + SECRET_LIFETIME_MS);

/** The secret of `date`, created if this is the first request for it anywhere. */
export async function loadOrCreateSecret(date: string): Promise<Buffer> {
  const ref = secrets().doc(date);
  const snap = await ref.get();
  countOps({ reads: 1 });
  if (snap.exists) return Buffer.from(snap.get("secret") as Buffer);
  const secret = randomBytes(32);
  try {
    await ref.create({ secret, expiresAt: Timestamp.fromDate(secretExpiry(date)) });
    countOps({ writes: 1 });
    return secret;
  } catch (error) {
    if ((error as { code?: number }).code !== ALREADY_EXISTS) throw error;
    const again = await ref.get(); // another instance made it first
    countOps({ reads: 1 });
    return Buffer.from(again.get("secret") as Buffer);
  }
}

/** Deletes every secret past its lifetime; returns how many. */
export async function destroyExpiredSecrets(now = new Date()): Promise<number> {
  const snap = await secrets().where("expiresAt", "<=", Timestamp.fromDate(now)).get();
  const batch = db().batch();
  for (const doc of snap.docs) batch.delete(doc.ref);
  if (snap.size) await batch.commit();
  countOps({ reads: Math.max(1, snap.size), deletes: snap.size });
  return snap.size;
}
