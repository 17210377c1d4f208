// Read-only lists for the console's settings: a workspace's members and its phone-book listings.
// Both are single-field equality queries, so they need no composite index.
import type { Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";
import { fromListingDoc, type Listing } from "./listings";

export interface MemberRow {
  uid: string;
  role: "owner" | "member";
  createdAt: Date | null;
}

export async function listMembers(merchantId: string, limit = 200): Promise<MemberRow[]> {
  const snap = await db().collection(COLLECTIONS.memberships).where("merchantId", "==", merchantId).limit(limit).get();
  return snap.docs.map((d) => ({ uid: d.id, role: d.get("role"), createdAt: (d.get("createdAt") as Timestamp | undefined)?.toDate() ?? null }));
}

export async function listWorkspaceListings(merchantId: string, limit = 200): Promise<Listing[]> {
  const snap = await db().collection(COLLECTIONS.listings).where("merchantId", "==", merchantId).limit(limit).get();
  return snap.docs.map((d) => fromListingDoc(d.data()));
}
