// Moved to core/clientAddress.ts (the folder ladder, docs/architecture.md): the client's address is read by
// domain code too (scans/place.ts). This re-export keeps redirect/app.ts, which is being changed elsewhere,
// building unchanged; drop it when that file imports from core/ directly.
export { clientAddressOf } from "../core/clientAddress";
