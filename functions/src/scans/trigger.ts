// The scanCounter trigger's definition, kept apart from index.ts: the Firestore event provider pulls in
// firebase-admin/firestore and event protobufs, which the HTTP functions should not load at cold start.
import { onDocumentCreated } from "firebase-functions/v2/firestore";
import { COLLECTIONS } from "../store/collections";

export const scanCounter = onDocumentCreated(
  // retry: a failed count is redelivered; counting is idempotent per scan id (store/scans.ts).
  { document: `${COLLECTIONS.scanInbox}/{scanId}`, retry: true, memory: "256MiB", concurrency: 80 },
  async (event) => (await import("./counter")).countInboxScan(event.params.scanId, event.data?.data()),
);
