// The voice-agent phone book: register (free, awaiting approval), approve or reject (ops or admins),
// look up. One listing per normalised domain; nobody can take over another merchant's domain.
import { getConfig } from "../core/config";
import { AppError } from "../core/errors";
import { db } from "../core/firebase";
import { getListing, queueMail, writeListing, type Listing, type ListingDetails } from "../store/listings";
import { escapeHtml } from "./html";
import { normalizeDomain, normalizePhone } from "./domain";

export function requireDomain(input: string): string {
  const domain = normalizeDomain(input);
  if (!domain) throw new AppError("VALIDATION_FAILED", `Not a domain name: ${input.slice(0, 100)}`, { hint: "Give a host name like example.com." });
  return domain;
}

export function pageUrl(domain: string): string {
  return `${getConfig().baseUrl}/d/${domain}`;
}

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
  };
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
    let listing: Listing;
    if (existing && existing.merchantId === merchantId && existing.status === "approved") {
      // The approved entry stays live; the change waits for approval.
      listing = { ...existing, pendingChange: details, updatedAt: now };
    } else {
      listing = {
        domain,
        merchantId,
        ...details,
        status: "pending",
        pendingChange: null,
        createdAt: existing?.merchantId === merchantId ? existing.createdAt : now,
        updatedAt: now,
        approvedAt: null,
        rejectedReason: null,
      };
    }
    writeListing(tx, listing);
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
export async function approveListing(domainInput: string) {
  const domain = requireDomain(domainInput);
  const now = new Date();
  return db().runTransaction(async (tx) => {
    const listing = await getListing(domain, tx);
    if (!listing) throw new AppError("NOT_FOUND", `No listing for ${domain}`);
    if (listing.status === "approved" && !listing.pendingChange) throw new AppError("CONFLICT", `${domain} is already approved`);
    if (listing.status === "rejected") throw new AppError("CONFLICT", `${domain} was rejected; it must be registered again`);
    const approved: Listing = { ...listing, ...(listing.pendingChange ?? {}), pendingChange: null, status: "approved", approvedAt: now, updatedAt: now };
    writeListing(tx, approved);
    queueMail(tx, confirmationMail(approved));
    return publicListing(approved);
  });
}

export async function rejectListing(domainInput: string, reason = "") {
  const domain = requireDomain(domainInput);
  const now = new Date();
  return db().runTransaction(async (tx) => {
    const listing = await getListing(domain, tx);
    if (!listing) throw new AppError("NOT_FOUND", `No listing for ${domain}`);
    // Rejecting an approved listing's change keeps the approved entry; rejecting a new one frees the domain.
    const next: Listing =
      listing.status === "approved"
        ? { ...listing, pendingChange: null, updatedAt: now }
        : { ...listing, status: "rejected", rejectedReason: reason.slice(0, 500) || null, updatedAt: now };
    writeListing(tx, next);
    return publicListing(next);
  });
}

export async function lookupListing(domainInput: string) {
  const domain = requireDomain(domainInput);
  const listing = await getListing(domain);
  if (!listing || listing.status !== "approved") {
    return { registered: false as const, domain, message: `${domain} has no approved voice agent listing` };
  }
  return {
    registered: true as const,
    domain,
    businessName: listing.businessName,
    voiceAgentPhone: listing.voiceAgentPhone,
    page: pageUrl(domain),
  };
}

