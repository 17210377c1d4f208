// Read-only list for the console's settings: a workspace's members (a single-field equality query, so no
// composite index); its phone-book listings come from store/listings.ts.
import type { Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";

interface MemberRow {
  uid: string;
  role: "owner" | "member";
  createdAt: Date | null;
}

export async function listMembers(merchantId: string, limit = 200): Promise<MemberRow[]> {
  const snap = await db().collection(COLLECTIONS.memberships).where("merchantId", "==", merchantId).limit(limit).get();
  return snap.docs.map((d) => ({ uid: d.id, role: d.get("role"), createdAt: (d.get("createdAt") as Timestamp | undefined)?.toDate() ?? null }));
}
