// Workspaces and memberships. A uid belongs to exactly one workspace: the membership doc id is the uid.
import { FieldValue } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { COLLECTIONS } from "./collections";
import { DEFAULT_TIME_ZONE } from "../core/constants";
import { keysOfMinterRevocation } from "./apiKeys";
import { grantsOfUserRevocation } from "./oauthGrants";
import { dateOf, recordConverter } from "./records";

export type Role = "owner" | "member";

export interface Workspace {
  merchantId: string;
  name: string;
  ownerUid: string;
  createdAt: Date;
  /** IANA time zone whose calendar days and hours scan analytics use (default UTC). */
  timeZone: string;
}

interface Membership {
  uid: string;
  merchantId: string;
  role: Role;
}

/** A workspace from before time zones counts in UTC (DEFAULT_TIME_ZONE). */
const workspaceRecord = recordConverter<Workspace>((data, merchantId) => ({
  merchantId,
  name: data.name,
  ownerUid: data.ownerUid,
  createdAt: dateOf(data.createdAt),
  timeZone: (typeof data.timeZone === "string" && data.timeZone) || DEFAULT_TIME_ZONE,
}));
const membershipRecord = recordConverter<Membership>((data, uid) => ({ uid, merchantId: data.merchantId, role: data.role }));

/** Workspace documents as written; `workspaceRecords` reads them as workspaces. */
const workspaces = () => db().collection(COLLECTIONS.workspaces);
const workspaceRecords = () => workspaces().withConverter(workspaceRecord);
const memberships = () => db().collection(COLLECTIONS.memberships);
const membershipRecords = () => memberships().withConverter(membershipRecord);

export async function getMembership(uid: string): Promise<Membership | undefined> {
  return (await membershipRecords().doc(uid).get()).data();
}

export async function getWorkspace(merchantId: string): Promise<Workspace | undefined> {
  return (await workspaceRecords().doc(merchantId).get()).data();
}

/** The workspace's analytics time zone: the one field the redirect needs of a workspace. */
export async function readWorkspaceTimeZone(merchantId: string): Promise<string> {
  return (await workspaceRecords().doc(merchantId).get()).data()?.timeZone ?? DEFAULT_TIME_ZONE;
}

/**
 * Sets the analytics time zone (an IANA name, validated by the caller). Scans already counted keep the
 * day they were counted on; instances pick the new zone up within a minute.
 */
export async function setWorkspaceTimeZone(merchantId: string, timeZone: string): Promise<void> {
  try {
    await workspaces().doc(merchantId).update({ timeZone });
  } catch (error) {
    if ((error as { code?: number }).code === 5) throw new AppError("NOT_FOUND", `No workspace ${merchantId}`);
    throw error;
  }
}

/**
 * Creates a workspace owned by `uid` unless the uid already belongs to one; returns the uid's workspace
 * either way (idempotent, transactional, so two concurrent first sign-ins make one workspace).
 */
export async function ensureWorkspaceForOwner(
  uid: string,
  name: string,
  merchantId?: string,
): Promise<{ workspace: Workspace; created: boolean }> {
  const membershipRef = memberships().doc(uid);
  const workspaceRef = merchantId ? workspaces().doc(merchantId) : workspaces().doc();
  const result = await db().runTransaction(async (tx) => {
    const existing = (await tx.get(membershipRef.withConverter(membershipRecord))).data();
    if (existing) return { merchantId: existing.merchantId, created: false };
    const ws = await tx.get(workspaceRef);
    if (ws.exists) throw new AppError("CONFLICT", `Workspace ${workspaceRef.id} already exists`);
    tx.create(workspaceRef, { name, ownerUid: uid, createdAt: FieldValue.serverTimestamp() });
    tx.create(membershipRef, { merchantId: workspaceRef.id, role: "owner", createdAt: FieldValue.serverTimestamp() });
    return { merchantId: workspaceRef.id, created: true };
  });
  const workspace = await getWorkspace(result.merchantId);
  if (!workspace) throw new AppError("INTERNAL", "Workspace vanished after creation");
  return { workspace, created: result.created };
}

export async function addMember(merchantId: string, uid: string, role: Role = "member"): Promise<Membership> {
  const membershipRef = memberships().doc(uid);
  await db().runTransaction(async (tx) => {
    const [ws, existing] = await Promise.all([tx.get(workspaces().doc(merchantId)), tx.get(membershipRef.withConverter(membershipRecord))]);
    if (!ws.exists) throw new AppError("NOT_FOUND", `No workspace ${merchantId}`);
    const member = existing.data();
    if (member && member.merchantId !== merchantId) {
      throw new AppError("CONFLICT", `User ${uid} already belongs to another workspace`);
    }
    tx.set(membershipRef, { merchantId, role, createdAt: FieldValue.serverTimestamp() });
  });
  return { uid, merchantId, role };
}

/**
 * Removes a member from a workspace, and revokes the keys they minted and the OAuth grants they made
 * there in the same transaction, so those stop on the very next request without a membership read on every keyed call. The owner
 * cannot be removed (a workspace always has one).
 */
export async function removeMember(merchantId: string, uid: string): Promise<void> {
  const membershipRef = memberships().doc(uid);
  const logGrantRevocations = await db().runTransaction(async (tx) => {
    const existing = (await tx.get(membershipRef.withConverter(membershipRecord))).data();
    if (!existing || existing.merchantId !== merchantId) throw new AppError("NOT_FOUND", `User ${uid} is not a member of ${merchantId}`);
    if (existing.role === "owner") throw new AppError("CONFLICT", "The owner cannot be removed from their workspace");
    const [revokeKeys, revokeGrants] = await Promise.all([keysOfMinterRevocation(tx, merchantId, uid), grantsOfUserRevocation(tx, merchantId, uid)]);
    revokeKeys();
    const logGrants = revokeGrants();
    tx.delete(membershipRef);
    return logGrants;
  });
  logGrantRevocations();
}
