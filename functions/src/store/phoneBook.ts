// The public part of approved listings, phoneBook/{domain}: the only listing data Firestore rules let
// clients read. It exists exactly while the listing is approved and holds nothing private (the full record,
// with contact email, merchant, pending change and rejection reason, stays in listings/{domain}).
import type { Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";

interface PhoneBookEntry {
  domain: string;
  businessName: string;
  voiceAgentPhone: string;
  /** The listing's page, {base_url}/d/<domain>. */
  page: string;
}

const entryRef = (domain: string) => db().collection(COLLECTIONS.phoneBook).doc(domain);

export function putPhoneBookEntry(tx: Transaction, entry: PhoneBookEntry): void {
  // Field by field, so nothing else ever lands in the public document.
  tx.set(entryRef(entry.domain), { domain: entry.domain, businessName: entry.businessName, voiceAgentPhone: entry.voiceAgentPhone, page: entry.page });
}

export function removePhoneBookEntry(tx: Transaction, domain: string): void {
  tx.delete(entryRef(domain));
}

export async function getPhoneBookEntry(domain: string): Promise<PhoneBookEntry | undefined> {
  const snap = await entryRef(domain).get();
  return snap.exists ? (snap.data() as PhoneBookEntry) : undefined;
}

/** Entries in domain order, optionally those whose domain starts with `prefix`. */
export async function listPhoneBook(options: { prefix?: string; limit?: number } = {}): Promise<PhoneBookEntry[]> {
  let query = db().collection(COLLECTIONS.phoneBook).orderBy("domain");
  if (options.prefix) query = query.where("domain", ">=", options.prefix).where("domain", "<", `${options.prefix}\uf8ff`);
  const snap = await query.limit(options.limit ?? 100).get();
  return snap.docs.map((d) => d.data() as PhoneBookEntry);
}
