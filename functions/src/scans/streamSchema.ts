// Moved to store/scanEvents.ts (the folder ladder, docs/architecture.md): the message is what store/scanStream.ts
// publishes. This re-export keeps scans/record.ts, which is being changed elsewhere, building unchanged;
// drop it when that file imports from store/ directly.
export { SCAN_EVENT_VERSION, type ScanEvent } from "../store/scanEvents";
