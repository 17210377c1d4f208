// Sandbox codes (keyless, expiring) and their per-IP daily counters, apart from account codes.
//   sandboxCodes/{id}: destinationUrl, colours {foreground, background} or null, claimTokenHash, createdAt,
//                      expiresAt (TTL; null once claimed), claimedAt, claimedBy {uid, merchantId, codeId}
//   sandboxCounters/{subjectHash}_{day}: count, expiresAt (TTL)
// TTL deletion is lazy (and absent in the emulator), so readers treat an expired document as gone.
import { createHmac, randomBytes } from "node:crypto";
import { sha256Hex } from "../core/hash";
import { Timestamp, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { COLLECTIONS } from "./collections";
import { dateOf, dateOrNull, recordConverter } from "./records";

interface SandboxCode {
  id: string;
  destinationUrl: string;
  /** The design's colours the code was made with, kept by a claim; null for black on white. */
  colours: SandboxColours | null;
  claimTokenHash: string;
  createdAt: Date;
  expiresAt: Date | null;
  originalExpiresAt: Date;
  claimedAt: Date | null;
  claimedBy: { uid: string; merchantId: string; codeId: string } | null;
}

export interface SandboxColours {
  foreground: string;
  background: string;
}

/** A sandbox code; colours and the claim read as null on a code from before them or not claimed. */
const sandboxCodeRecord = recordConverter<SandboxCode>((d, id) => ({
  id,
  destinationUrl: d.destinationUrl,
  colours: d.colours ?? null,
  claimTokenHash: d.claimTokenHash,
  createdAt: dateOf(d.createdAt),
  expiresAt: dateOrNull(d.expiresAt),
  originalExpiresAt: dateOf(d.originalExpiresAt),
  claimedAt: dateOrNull(d.claimedAt),
  claimedBy: d.claimedBy ?? null,
}));

/** A day's counter of one subject. */
const counterRecord = recordConverter<{ count: number; expiresAt: Date | null }>((d) => ({ count: Number(d.count ?? 0), expiresAt: dateOrNull(d.expiresAt) }));

const codes = () => db().collection(COLLECTIONS.sandboxCodes);
const counters = () => db().collection(COLLECTIONS.sandboxCounters);
const counterRef = (counter: string) => counters().doc(counter).withConverter(counterRecord);

export const hashClaimToken = (token: string) => sha256Hex(token);
export const newClaimToken = () => `claim_${randomBytes(24).toString("base64url")}`;

/** Counter id: a keyed hash of the subject (no address is stored) and the UTC day. */
export function counterId(subject: string, day: string, salt: string): string {
  return `${createHmac("sha256", salt).update(subject).digest("hex").slice(0, 32)}_${day}`;
}

export interface Quota {
  limit: number;
  used: number;
  resetAt: Date;
}

export async function readQuota(counter: string, limit: number, resetAt: Date): Promise<Quota> {
  const stored = (await counterRef(counter).get()).data();
  const used = stored?.expiresAt && stored.expiresAt.getTime() > Date.now() ? stored.count : 0;
  return { limit, used, resetAt };
}

/** The refusal of a caller whose day's sandbox codes are spent (read before anything is looked up or drawn, and again when taken). */
export function sandboxQuotaError(limit: number, subjectName: string, resetAt: Date): AppError {
  return new AppError("RATE_LIMITED", `The keyless sandbox makes ${limit} codes per ${subjectName} per UTC day`, {
    hint: "Sign up for an API key to create more, or use the bulk endpoint with a key.",
    details: { limit, resetAt: resetAt.toISOString() },
  });
}

/**
 * Takes one unit of the counter's daily quota and creates the sandbox code in the same transaction,
 * so concurrent requests can never exceed the limit. Returns the quota after the call.
 */
export async function createWithinQuota(
  counter: string,
  limit: number,
  resetAt: Date,
  code: Omit<SandboxCode, "claimedAt" | "claimedBy">,
  /** Who the counter counts, for the error message. */
  subjectName = "IP address",
): Promise<Quota> {
  const ref = counterRef(counter);
  return db().runTransaction(
    async (tx) => {
      const used = (await tx.get(ref)).data()?.count ?? 0;
      if (used >= limit) {
        throw sandboxQuotaError(limit, subjectName, resetAt);
      }
      tx.set(counters().doc(counter), { count: used + 1, expiresAt: Timestamp.fromMillis(resetAt.getTime() + 86_400_000) });
      tx.create(codes().doc(code.id), {
        destinationUrl: code.destinationUrl,
        colours: code.colours,
        claimTokenHash: code.claimTokenHash,
        createdAt: Timestamp.fromDate(code.createdAt),
        expiresAt: Timestamp.fromDate(code.expiresAt!),
        originalExpiresAt: Timestamp.fromDate(code.originalExpiresAt),
        claimedAt: null,
        claimedBy: null,
      });
      return { limit, used: used + 1, resetAt };
    },
    { maxAttempts: 50 },
  );
}

export function newSandboxId(): string {
  return codes().doc().id;
}

/** Finds the sandbox code of a claim token (inside a transaction when given). */
export async function findByClaimToken(token: string, tx?: Transaction): Promise<SandboxCode | undefined> {
  const query = codes().withConverter(sandboxCodeRecord).where("claimTokenHash", "==", hashClaimToken(token)).limit(1);
  const snap = tx ? await tx.get(query) : await query.get();
  return snap.docs[0]?.data();
}

export function markClaimed(tx: Transaction, id: string, claimedBy: NonNullable<SandboxCode["claimedBy"]>, at: Date): void {
  // expiresAt null: the TTL policy no longer applies, the record stays as proof of the claim.
  tx.update(codes().doc(id), { claimedAt: Timestamp.fromDate(at), claimedBy, expiresAt: null });
}

/** Why a sandbox code cannot be claimed, if it cannot. */
export function claimBlocker(code: SandboxCode | undefined, now: Date): AppError | undefined {
  if (!code) return new AppError("NOT_FOUND", "Unknown claim token");
  if (code.claimedAt) return new AppError("CONFLICT", "This sandbox code was already claimed");
  if (code.expiresAt && code.expiresAt.getTime() <= now.getTime()) {
    return new AppError("GONE", "This sandbox code expired", { hint: "Sandbox codes last 7 days; generate a new one." });
  }
  return undefined;
}
