// Audit events: who called which tool, how it ended, how long it took. Never arguments or results.
import { randomUUID } from "node:crypto";
import { FieldValue, Timestamp, type Transaction } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { Coalescer } from "../core/coalescer";
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

// Concurrent tool calls on one instance commit their audit events in one batched write.
const auditWrites = new Coalescer<AuditEvent, void>(async (events) => {
  const batch = db().batch();
  const collection = db().collection(COLLECTIONS.auditEvents);
  // A random UUID for the id: as unguessable and as spread over the key range as the SDK's auto-id, which
  // draws fresh random bytes for each id (about 1% of a busy tool server's CPU); Node batches UUIDs' bytes.
  for (const event of events) batch.create(collection.doc(randomUUID()), auditData(event));
  await batch.commit();
  return events.map(() => undefined);
}, 400);

export function writeAuditEvent(event: AuditEvent): Promise<void> {
  return auditWrites.submit(event);
}

function auditData(event: AuditEvent) {
  return { ...event, at: FieldValue.serverTimestamp(), expiresAt: Timestamp.fromMillis(Date.now() + AUDIT_RETENTION_DAYS * 86_400_000) };
}

/** An audit event written with the change it records, in the change's transaction (an operator's action). */
export function addAuditEvent(tx: Transaction, event: AuditEvent): void {
  tx.create(db().collection(COLLECTIONS.auditEvents).doc(randomUUID()), auditData(event));
}
