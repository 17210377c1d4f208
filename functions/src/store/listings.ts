// Voice-agent listings, one document per normalised domain (listings/{domain}), and the outgoing mail
// queue in the Firebase Trigger Email extension's format (mail/{auto}). Both are server-only: clients
// read the public part of approved listings from phoneBook/{domain} (store/phoneBook.ts).
// Pending listings expire (expiresAt, TTL policy). TTL deletion is lazy (and absent in the emulator), so
// every read here treats an expired pending listing as gone.
import { FieldValue, Timestamp, type Transaction } from "firebase-admin/firestore";
import { auth, db } from "../core/firebase";
import { PENDING_LISTING_LIFETIME_DAYS } from "../core/limits";
import { COLLECTIONS } from "./collections";
import { dateOf, dateOrNull, recordConverter } from "./records";

type ListingStatus = "pending" | "approved" | "rejected";

export interface ListingDetails {
  businessName: string;
  voiceAgentPhone: string;
  email: string;
}

export interface Listing extends ListingDetails {
  domain: string;
  merchantId: string;
  status: ListingStatus;
  /** A change submitted by the owner of an approved listing, live only once approved. */
  pendingChange: ListingDetails | null;
  createdAt: Date;
  updatedAt: Date;
  approvedAt: Date | null;
  rejectedReason: string | null;
  /** Set while pending (the TTL deletes the document after it); null once approved or rejected. */
  expiresAt: Date | null;
}

/** A listing as stored (writeListing writes every field of one); an older one lacks the later fields. */
const listingRecord = recordConverter<Listing>((data, domain) => {
  const createdAt = dateOf(data.createdAt);
  // Pending listings written before expiry existed get the lifetime they would have had.
  const expiresAt = dateOrNull(data.expiresAt) ?? (data.status === "pending" ? new Date(createdAt.getTime() + PENDING_LISTING_LIFETIME_DAYS * 86_400_000) : null);
  return {
    domain: data.domain ?? domain,
    merchantId: data.merchantId,
    businessName: data.businessName,
    voiceAgentPhone: data.voiceAgentPhone,
    email: data.email,
    status: data.status,
    pendingChange: data.pendingChange ?? null,
    createdAt,
    updatedAt: dateOf(data.updatedAt),
    approvedAt: dateOrNull(data.approvedAt),
    rejectedReason: data.rejectedReason ?? null,
    expiresAt,
  };
});

const listings = () => db().collection(COLLECTIONS.listings).withConverter(listingRecord);
const listingRef = (domain: string) => db().collection(COLLECTIONS.listings).doc(domain);

function isLive(l: Listing, now = Date.now()): boolean {
  return !(l.status === "pending" && l.expiresAt && l.expiresAt.getTime() <= now);
}

/** The listing of a domain; an expired pending listing counts as none. */
export async function getListing(domain: string, tx?: Transaction): Promise<Listing | undefined> {
  const ref = listings().doc(domain);
  const listing = (tx ? await tx.get(ref) : await ref.get()).data();
  return listing && isLive(listing) ? listing : undefined;
}

/** Domains of a workspace's unexpired pending listings, read in the transaction (for the cap). */
export async function pendingDomainsOf(merchantId: string, tx: Transaction): Promise<string[]> {
  const snap = await tx.get(listings().where("merchantId", "==", merchantId).where("status", "==", "pending"));
  return snap.docs.map((d) => d.data()).filter((l) => isLive(l)).map((l) => l.domain);
}

/**
 * Writes every field of the listing, each replaced whole (a cleared one as null), and leaves any field
 * the record does not name (a newer release's, an operator's) as stored.
 */
export function writeListing(tx: Transaction, listing: Listing): void {
  const data = {
    ...listing,
    createdAt: Timestamp.fromDate(listing.createdAt),
    updatedAt: Timestamp.fromDate(listing.updatedAt),
    approvedAt: listing.approvedAt ? Timestamp.fromDate(listing.approvedAt) : null,
    expiresAt: listing.expiresAt ? Timestamp.fromDate(listing.expiresAt) : null,
  };
  tx.set(listingRef(listing.domain), data, { mergeFields: Object.keys(data) });
}

export async function listListings(status: ListingStatus, options: { prefix?: string; limit?: number } = {}): Promise<Listing[]> {
  let query = listings().where("status", "==", status).orderBy("domain");
  if (options.prefix) query = query.where("domain", ">=", options.prefix).where("domain", "<", `${options.prefix}\uf8ff`);
  const snap = await query.limit(options.limit ?? 100).get();
  return snap.docs.map((d) => d.data()).filter((l) => isLive(l));
}

export interface MailMessage {
  to: string;
  message: { subject: string; text: string; html: string };
}

/** Queued mail (and the extension's delivery state on it) is kept this long, then removed by TTL. */
export const MAIL_RETENTION_DAYS = 30;

export function queueMail(tx: Transaction, mail: MailMessage): void {
  tx.create(db().collection(COLLECTIONS.mail).doc(), { ...mail, createdAt: FieldValue.serverTimestamp(), expiresAt: Timestamp.fromMillis(Date.now() + MAIL_RETENTION_DAYS * 86_400_000) });
}

/**
 * Queues a plain-text notice to a workspace's owner (their Auth email), outside any transaction: it goes
 * with a decision already written. False when the owner has no email address.
 */
export async function mailWorkspaceOwner(merchantId: string, subject: string, text: string): Promise<boolean> {
  const ownerUid = (await db().collection(COLLECTIONS.workspaces).doc(merchantId).get()).get("ownerUid") as string | undefined;
  const email = ownerUid ? (await auth().getUser(ownerUid)).email : undefined;
  if (!email) return false;
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  await db().runTransaction(async (tx) => queueMail(tx, { to: email, message: { subject, text, html: `<p>${esc(text).replace(/\n/g, "<br>")}</p>` } }));
  return true;
}

/** A workspace's own listings, for its settings page; an expired pending one is gone, as everywhere. */
export async function listWorkspaceListings(merchantId: string, limit = 200): Promise<Listing[]> {
  const snap = await listings().where("merchantId", "==", merchantId).limit(limit).get();
  return snap.docs.map((d) => d.data()).filter((l) => isLive(l));
}
