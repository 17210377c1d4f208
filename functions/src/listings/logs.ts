// Named structured log events of the phone book, one function per event (as in firebase/extensions'
// logs.ts). Fields are what an operator needs to trace a moderation decision; no contact data.
import { logger } from "firebase-functions";

export interface ListingDecision {
  domain: string;
  merchantId: string;
  /** True when the decision was about a pending change of an already approved listing. */
  change: boolean;
  /** uid of the moderator. */
  by: string;
}

export function logListingApproved(event: ListingDecision): void {
  logger.info(`listing approved: ${event.domain}`, { event: "listing_approved", ...event });
}

export function logListingRejected(event: ListingDecision & { reason: string }): void {
  logger.info(`listing rejected: ${event.domain}`, { event: "listing_rejected", ...event });
}
