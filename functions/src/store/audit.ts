// Audit events: who called which tool, how it ended, how long it took. Never arguments or results.
import { FieldValue } from "firebase-admin/firestore";
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

// Concurrent tool calls on one instance commit their audit events in one batched write.
const auditWrites = new Coalescer<AuditEvent, void>(async (events) => {
  const batch = db().batch();
  const collection = db().collection(COLLECTIONS.auditEvents);
  for (const event of events) batch.create(collection.doc(), { ...event, at: FieldValue.serverTimestamp() });
  await batch.commit();
  return events.map(() => undefined);
}, 400);

export function writeAuditEvent(event: AuditEvent): Promise<void> {
  return auditWrites.submit(event);
}
