// The voice-agent phone book: register (free, awaiting approval), approve or reject (ops or admins),
// look up. One listing per normalised domain; nobody can take over another merchant's domain, and nobody
// holds one by squatting: a workspace has a few pending listings at most, and they expire.
import type { Transaction } from "firebase-admin/firestore";
import { getConfig } from "../core/config";
import { AppError } from "../core/errors";
import { db } from "../core/firebase";
import { MAX_PENDING_LISTINGS, PENDING_LISTING_LIFETIME_DAYS } from "../core/limits";
import { getListing, pendingDomainsOf, queueMail, writeListing, type Listing, type ListingDetails } from "../store/listings";
import { getPhoneBookEntry, putPhoneBookEntry, removePhoneBookEntry } from "../store/phoneBook";
import { escapeHtml } from "./html";
import { normalizeDomain, normalizePhone } from "./domain";
import { logListingApproved, logListingRejected } from "../core/log";

function requireDomain(input: string): string {
  const domain = normalizeDomain(input);
  if (!domain) throw new AppError("VALIDATION_FAILED", `Not a domain name: ${input.slice(0, 100)}`, { hint: "Give a host name like example.com." });
  return domain;
}

export function pageUrl(domain: string): string {
  return `${getConfig().baseUrl}/d/${domain}`;
}

/** A listing as its workspace and moderators see it (tool result, console, CLI), private fields included.
 * The public sees only its phoneBook entry. */
export function publicListing(l: Listing) {
  return {
    domain: l.domain,
    businessName: l.businessName,
    voiceAgentPhone: l.voiceAgentPhone,
    email: l.email,
    status: l.status,
    pendingChange: l.pendingChange,
    page: l.status === "approved" ? pageUrl(l.domain) : null,
    createdAt: l.createdAt.toISOString(),
    updatedAt: l.updatedAt.toISOString(),
    approvedAt: l.approvedAt?.toISOString() ?? null,
    expiresAt: l.expiresAt?.toISOString() ?? null,
  };
}

/** Writes the full record and keeps its public part (phoneBook) in step: present exactly while approved. */
function saveListing(tx: Transaction, listing: Listing): void {
  writeListing(tx, listing);
  if (listing.status === "approved") {
    const { domain, businessName, voiceAgentPhone } = listing;
    putPhoneBookEntry(tx, { domain, businessName, voiceAgentPhone, page: pageUrl(domain) });
  } else {
    removePhoneBookEntry(tx, listing.domain);
  }
}

async function requireRoomForPending(merchantId: string, tx: Transaction): Promise<void> {
  const pending = await pendingDomainsOf(merchantId, tx);
  if (pending.length < MAX_PENDING_LISTINGS) return;
  throw new AppError("CONFLICT", `This workspace already has ${pending.length} listings awaiting approval, the most it may hold`, {
    hint: `Wait until one is approved or rejected, or until it expires ${PENDING_LISTING_LIFETIME_DAYS} days after registration.`,
    details: { pendingListings: pending.length, limit: MAX_PENDING_LISTINGS },
  });
}

export async function registerListing(merchantId: string, input: { domain: string } & ListingDetails) {
  const domain = requireDomain(input.domain);
  const phone = normalizePhone(input.voiceAgentPhone);
  if (!phone) throw new AppError("VALIDATION_FAILED", "voiceAgentPhone must be in E.164 form, like +14155550123");
  const details: ListingDetails = { businessName: input.businessName, voiceAgentPhone: phone, email: input.email };
  const now = new Date();
  return db().runTransaction(async (tx) => {
    const existing = await getListing(domain, tx);
    if (existing && existing.merchantId !== merchantId && existing.status !== "rejected") {
      throw new AppError("CONFLICT", `${domain} is already registered by another business`, {
        hint: "If this is your domain, contact support: listings are never transferred automatically.",
      });
    }
    const own = existing?.merchantId === merchantId ? existing : undefined;
    // A change to an approved listing or to one's own pending listing holds no new domain: no cap.
    if (own?.status !== "approved" && own?.status !== "pending") await requireRoomForPending(merchantId, tx);
    let listing: Listing;
    if (own?.status === "approved") {
      // The approved entry stays live; the change waits for approval.
      listing = { ...own, pendingChange: details, updatedAt: now };
    } else {
      listing = {
        domain,
        merchantId,
        ...details,
        status: "pending",
        pendingChange: null,
        createdAt: own ? own.createdAt : now,
        updatedAt: now,
        approvedAt: null,
        rejectedReason: null,
        // Re-registering does not extend the hold: a pending listing expires a fixed time after it began.
        expiresAt: own?.status === "pending" ? own.expiresAt : new Date(now.getTime() + PENDING_LISTING_LIFETIME_DAYS * 86_400_000),
      };
    }
    saveListing(tx, listing);
    return { ...publicListing(listing), free: true, awaitingApproval: listing.status === "pending" || listing.pendingChange !== null };
  });
}

function confirmationMail(l: Listing) {
  const url = pageUrl(l.domain);
  return {
    to: l.email,
    message: {
      subject: `${l.domain} is now listed in the svc voice agent phone book`,
      text: `Hello ${l.businessName},\n\nYour voice agent listing for ${l.domain} (${l.voiceAgentPhone}) was approved and is live at ${url}\n\nThe svc team`,
      html: `<p>Hello ${escapeHtml(l.businessName)},</p><p>Your voice agent listing for <strong>${escapeHtml(l.domain)}</strong> (${escapeHtml(l.voiceAgentPhone)}) was approved and is live at <a href="${escapeHtml(url)}">${escapeHtml(url)}</a>.</p><p>The svc team</p>`,
    },
  };
}

/** Approves a pending listing (or an approved listing's pending change) and queues the confirmation. */
async function approve(domainInput: string): Promise<Decision> {
  const domain = requireDomain(domainInput);
  const now = new Date();
  return db().runTransaction(async (tx) => {
    const listing = await getListing(domain, tx);
    if (!listing) throw new AppError("NOT_FOUND", `No listing for ${domain}`, { hint: "It may have expired, or never been registered." });
    if (listing.status === "approved" && !listing.pendingChange) throw new AppError("CONFLICT", `${domain} is already approved`);
    if (listing.status === "rejected") throw new AppError("CONFLICT", `${domain} was rejected; it must be registered again`);
    const next: Listing = { ...listing, ...(listing.pendingChange ?? {}), pendingChange: null, status: "approved", approvedAt: now, updatedAt: now, expiresAt: null };
    saveListing(tx, next);
    queueMail(tx, confirmationMail(next));
    return { listing: next, change: listing.status === "approved" };
  });
}

async function reject(domainInput: string, reason: string): Promise<Decision> {
  const domain = requireDomain(domainInput);
  const now = new Date();
  return db().runTransaction(async (tx) => {
    const listing = await getListing(domain, tx);
    if (!listing) throw new AppError("NOT_FOUND", `No listing for ${domain}`, { hint: "It may have expired, or never been registered." });
    // Rejecting an approved listing's change keeps the approved entry; rejecting a new one frees the domain.
    const next: Listing =
      listing.status === "approved"
        ? { ...listing, pendingChange: null, updatedAt: now }
        : { ...listing, status: "rejected", rejectedReason: reason || null, updatedAt: now, expiresAt: null };
    saveListing(tx, next);
    return { listing: next, change: listing.status === "approved" };
  });
}

interface Decision {
  listing: Listing;
  /** The decision was about a pending change of an approved listing. */
  change: boolean;
}

// The ops CLI calls these two directly and prints the outcome itself; its stdout is its output, so it
// emits no log events.
export async function approveListing(domain: string) {
  return publicListing((await approve(domain)).listing);
}

export async function rejectListing(domain: string, reason = "") {
  return publicListing((await reject(domain, reason.slice(0, 500))).listing);
}

/** A moderator's decision from the console: applied, then logged as an event once committed. */
export async function moderateListing(action: "approve" | "reject", domain: string, options: { by: string; reason?: string }) {
  if (action === "approve") {
    const { listing, change } = await approve(domain);
    logListingApproved({ domain: listing.domain, merchantId: listing.merchantId, change, by: options.by });
    return publicListing(listing);
  }
  const reason = (options.reason ?? "").slice(0, 500);
  const { listing, change } = await reject(domain, reason);
  logListingRejected({ domain: listing.domain, merchantId: listing.merchantId, change, by: options.by, reason });
  return publicListing(listing);
}

export async function lookupListing(domainInput: string) {
  const domain = requireDomain(domainInput);
  // The public part is all a lookup may show, so it reads only that.
  const entry = await getPhoneBookEntry(domain);
  if (!entry) return { registered: false as const, domain, message: `${domain} has no approved voice agent listing` };
  return { registered: true as const, domain, businessName: entry.businessName, voiceAgentPhone: entry.voiceAgentPhone, page: pageUrl(domain) };
}

