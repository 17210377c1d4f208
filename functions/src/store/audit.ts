// Audit events: who called which tool, how it ended, how long it took. Never arguments or results.
import { randomUUID } from "node:crypto";
import { FieldValue, Timestamp, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { Coalescer } from "../core/coalescer";
import { commitWrites } from "../core/firestoreRest";
import { COLLECTIONS } from "./collections";

interface AuditEvent {
  merchantId: string;
  uid: string;
  authMethod: string;
  keyPrefix: string | null;
  tool: string;
  status: string; // "ok" or the error code
  durationMs: number;
  /** An operator's action only (uid: who, authMethod "admin"): what it changed, e.g. the key and workspaces of a GS1 reassignment. */
  details?: Record<string, unknown>;
}

/** Audit events are kept this long, then removed by TTL on `expiresAt` (docs/data-model.md, "Retention"). */
export const AUDIT_RETENTION_DAYS = 400;

// Concurrent tool calls on one instance commit their audit events in one batched write. Every tool call
// writes one, so the commit goes to Firestore's REST API directly (core/firestoreRest.ts), not through
// the client. A random UUID for the id: as unguessable and as spread over the key range as the SDK's
// auto-id, which draws fresh random bytes for each id; Node batches UUIDs' bytes.
const auditWrites = new Coalescer<AuditEvent, void>(async (events) => {
  const expiresAt = auditExpiry();
  await commitWrites(events.map((event) => ({ path: `${COLLECTIONS.auditEvents}/${randomUUID()}`, data: { ...event, expiresAt }, serverTimes: ["at"] })));
  return events.map(() => undefined);
}, 400);

export function writeAuditEvent(event: AuditEvent): Promise<void> {
  return auditWrites.submit(event);
}

const auditExpiry = () => Timestamp.fromMillis(Date.now() + AUDIT_RETENTION_DAYS * 86_400_000);

function auditData(event: AuditEvent) {
  return { ...event, at: FieldValue.serverTimestamp(), expiresAt: auditExpiry() };
}

/** An audit event written with the change it records, in the change's transaction (an operator's action). */
export function addAuditEvent(tx: Transaction, event: AuditEvent): void {
  tx.create(db().collection(COLLECTIONS.auditEvents).doc(randomUUID()), auditData(event));
}
