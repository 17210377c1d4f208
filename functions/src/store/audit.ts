// Audit events: who called which tool, how it ended, how long it took. Never arguments or results.
import { FieldValue, Timestamp } from "firebase-admin/firestore";
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
}

/** Audit events are kept this long, then removed by TTL on `expiresAt` (docs/data-model.md, "Retention"). */
export const AUDIT_RETENTION_DAYS = 400;

// Concurrent tool calls on one instance commit their audit events in one batched write.
const auditWrites = new Coalescer<AuditEvent, void>(async (events) => {
  const batch = db().batch();
  const collection = db().collection(COLLECTIONS.auditEvents);
  const expiresAt = Timestamp.fromMillis(Date.now() + AUDIT_RETENTION_DAYS * 86_400_000);
  for (const event of events) batch.create(collection.doc(), { ...event, at: FieldValue.serverTimestamp(), expiresAt });
  await batch.commit();
  return events.map(() => undefined);
}, 400);

export function writeAuditEvent(event: AuditEvent): Promise<void> {
  return auditWrites.submit(event);
}
