// Audit events: who called which tool, how it ended, how long it took. Never arguments or results.
import { FieldValue } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { COLLECTIONS } from "./collections";

export interface AuditEvent {
  merchantId: string;
  uid: string;
  authMethod: string;
  keyPrefix: string | null;
  tool: string;
  status: string; // "ok" or the error code
  durationMs: number;
}

export async function writeAuditEvent(event: AuditEvent): Promise<void> {
  await db().collection(COLLECTIONS.auditEvents).add({ ...event, at: FieldValue.serverTimestamp() });
}
