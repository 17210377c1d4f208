// Voice-agent listings, one document per normalised domain (listings/{domain}), and the outgoing mail
// queue in the Firebase Trigger Email extension's format (mail/{auto}).
import { FieldValue, Timestamp, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";

export type ListingStatus = "pending" | "approved" | "rejected";

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
}

export const listingRef = (domain: string) => db().collection(COLLECTIONS.listings).doc(domain);

export function fromListingDoc(data: FirebaseFirestore.DocumentData): Listing {
  const d = (v: unknown) => (v ? (v as Timestamp).toDate() : null);
  return { ...(data as Listing), createdAt: d(data.createdAt)!, updatedAt: d(data.updatedAt)!, approvedAt: d(data.approvedAt) };
}

export async function getListing(domain: string, tx?: Transaction): Promise<Listing | undefined> {
  const snap = tx ? await tx.get(listingRef(domain)) : await listingRef(domain).get();
  return snap.exists ? fromListingDoc(snap.data()!) : undefined;
}

export function writeListing(tx: Transaction, listing: Listing): void {
  tx.set(listingRef(listing.domain), {
    ...listing,
    createdAt: Timestamp.fromDate(listing.createdAt),
    updatedAt: Timestamp.fromDate(listing.updatedAt),
    approvedAt: listing.approvedAt ? Timestamp.fromDate(listing.approvedAt) : null,
  });
}

export async function listListings(status: ListingStatus, options: { prefix?: string; limit?: number } = {}): Promise<Listing[]> {
  let query = db().collection(COLLECTIONS.listings).where("status", "==", status).orderBy("domain");
  if (options.prefix) query = query.where("domain", ">=", options.prefix).where("domain", "<", `${options.prefix}\uf8ff`);
  const snap = await query.limit(options.limit ?? 100).get();
  return snap.docs.map((d) => fromListingDoc(d.data()));
}

export interface MailMessage {
  to: string;
  message: { subject: string; text: string; html: string };
}

export function queueMail(tx: Transaction, mail: MailMessage): void {
  tx.create(db().collection(COLLECTIONS.mail).doc(), { ...mail, createdAt: FieldValue.serverTimestamp() });
}
