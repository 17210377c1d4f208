// Wires the rate limiter (core/rateLimit.ts) to its Firestore windows (store/rateLimits.ts). The edge is
// where both layers meet, so core/ needs no store module; importing this module is what configures it.
import { configureRateLimiter } from "../core/rateLimit";
import { firestoreQuotaStore } from "../store/rateLimits";

configureRateLimiter(firestoreQuotaStore);
