// Links of a GS1 item taken from what the workspace already publishes (issue 37, item 1: "an existing
// code's menu or listing can be attached as a link of the matching GS1 link type"). A link may give
// `from: { menuCodeId }` or `from: { listingId }` instead of an href; it is resolved here, before anything
// is written, to the source's public URL, in the caller's workspace only (another workspace's code or
// listing is refused exactly like one that does not exist). docs/gs1-resolver.md, "Links from a menu code
// or a listing".
import { AppError } from "../core/errors";
import { findCode } from "../store/codes";
import { getListing } from "../store/listings";
import { getPhoneBookEntry } from "../store/phoneBook";
import { GS1_TITLE_MAX, type Gs1LinkInput, type Gs1LinkSource } from "./model";

/**
 * The GS1 link type each source gets unless the link names one. A menu: gs1:menuInfo ("a link to menu
 * details: food menus, services or other offerings of an organisation or a location"). A listing's page
 * (/d/<domain>) names the business and the phone number its voice agent answers: the way to reach it, so
 * gs1:support; the vocabulary has no contact-information link type, and gs1:locationInfo is for maps and
 * directions, which a listing does not give.
 */
export const SOURCE_LINK_TYPES = { menuCodeId: "gs1:menuInfo", listingId: "gs1:support" } as const;

/** A link with its target settled: href, link type and title always present. */
export type ResolvedGs1Link = Omit<Gs1LinkInput, "href" | "linkType" | "title" | "from"> & {
  href: string;
  linkType: string;
  title: string;
  from?: Gs1LinkSource;
};

interface SourceTarget {
  href: string;
  title: string;
}

const refused = (message: string, field: string, hint: string) => new AppError("VALIDATION_FAILED", `${field}: ${message}`, { hint, details: { field } });

/**
 * A QR code of the workspace that leads to its menu: a dynamic code's public scan URL ({dynamic link
 * host}/qr/<id>, so the GS1 link follows the code when it is re-pointed and its scans count), a static
 * code's destination as it is now. A taken-down code is refused.
 */
async function codeTarget(merchantId: string, codeId: string, field: string): Promise<SourceTarget> {
  const code = await findCode(merchantId, { codeId }).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "NOT_FOUND") {
      throw refused(`No QR code ${codeId} in this workspace`, field, "Give the codeId of one of this workspace's codes (svc.qr.list).");
    }
    throw error;
  });
  if (code.takenDown) throw refused(`QR code ${codeId} was taken down by the service's operators, so it cannot be a GS1 link`, field, "Attach another code, or give an href.");
  return { href: code.dynamicLink ?? code.destinationUrl, title: code.title };
}

/** The workspace's approved phone-book listing: its public page. */
async function listingTarget(merchantId: string, domain: string, field: string): Promise<SourceTarget> {
  const listing = await getListing(domain);
  if (!listing || listing.merchantId !== merchantId) {
    throw refused(`No phone-book listing for ${domain} in this workspace`, field, "Give the domain of one of this workspace's listings as it is listed (svc.voice_agent.register).");
  }
  const entry = listing.status === "approved" ? await getPhoneBookEntry(domain) : undefined;
  if (!entry) throw refused(`The listing for ${domain} is ${listing.status === "approved" ? "not published yet" : listing.status}: it has no public page until it is approved`, field, "Attach it once the listing is approved, or give an href.");
  return { href: entry.page, title: listing.businessName };
}

/** Settles every link: those with `from` get the source's URL, its link type unless given, and its title unless given. */
export async function resolveLinkSources(merchantId: string, links: readonly Gs1LinkInput[]): Promise<ResolvedGs1Link[]> {
  return Promise.all(
    links.map(async (link, i): Promise<ResolvedGs1Link> => {
      const { from, href, linkType, title, ...rest } = link;
      if (!from) return { ...rest, href: href!, linkType: linkType!, title: title! };
      const target = from.menuCodeId !== undefined
        ? await codeTarget(merchantId, from.menuCodeId, `links.${i}.from.menuCodeId`)
        : await listingTarget(merchantId, from.listingId!, `links.${i}.from.listingId`);
      const kind = from.menuCodeId !== undefined ? "menuCodeId" : "listingId";
      return { ...rest, from, href: target.href, linkType: linkType ?? SOURCE_LINK_TYPES[kind], title: title ?? target.title.slice(0, GS1_TITLE_MAX) };
    }),
  );
}
