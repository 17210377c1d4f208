// GS1 items of a workspace: register or replace, read, list, delete (REST: bulk/gs1Routes.ts; MCP:
// mcp/tools/gs1*.ts). Every refusal is VALIDATION_FAILED with what is wrong (a check digit, a qualifier's
// order, the default link), written before anything is stored; a key another workspace owns is CONFLICT.
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import { parseOrThrow } from "../core/validation";
import { assertDestinationAllowed } from "../abuse/service";
import { RateLimiter, rateLimitedError } from "../core/rateLimit";
import { firestoreQuotaStore } from "../store/rateLimits";
import {
  approvedElsewhereError,
  countGs1Items,
  deleteGs1Item,
  listGs1Items,
  putGs1Item,
  readGs1ClaimStanding,
  readGs1Item,
  type StoredGs1Item,
} from "../store/gs1Items";
import { checkKeyValue, checkQualifiers, Gs1SyntaxError, pathOf, primaryKeyDef } from "./keys";
import { matchesGs1Grammar } from "./grammar";
import { resolveLinkSources } from "./sources";
import { GS1_ITEMS_PER_WORKSPACE_MAX, Gs1ItemInputSchema, type Gs1Item, type Gs1ItemInput } from "./model";
import { prefixCandidates, restrictedNumberProblem } from "./prefixes";
import { gs1QrCode } from "./qrCode";
import { domainRefusal } from "../codes/domains";
import { readDomainsById } from "../store/codeDomains";

/** The resolver's public origin (https://host) and host: the dynamic-link host, where /qr/<id> is served too. */
export function resolverOrigin(): string {
  return new URL(getConfig().dynamicLinkUrl).origin;
}
export const resolverHost = () => new URL(resolverOrigin()).host;

/**
 * The host a resolver answers for (docs/gs1-on-brand-hosts.md): the shared resolver host, where every
 * workspace's items resolve, or a workspace's own domain's host, where only `merchantId`'s do.
 */
export interface ResolverScope {
  /** https://host, the root of every URI answered (linkset anchors, Link headers, the description file). */
  origin: string;
  /** The host items are stored under (gs1Items.host). */
  host: string;
  /** On a merchant's own host: the workspace holding it; items of any other workspace are not answered. */
  merchantId?: string;
}

export const sharedScope = (): ResolverScope => ({ origin: resolverOrigin(), host: resolverHost() });
/** A merchant's host: always https and no port, as the codes printed for it name it (docs/domains.md). */
export const ownHostScope = (hostname: string, merchantId: string): ResolverScope => ({ origin: `https://${hostname}`, host: hostname, merchantId });

/** An item's GS1 Digital Link URI, on the host it was registered on. */
export function gs1UriOf(item: Pick<StoredGs1Item, "host" | "path">): string {
  return item.host === resolverHost() ? `${resolverOrigin()}${item.path}` : `https://${item.host}${item.path}`;
}

export function publicGs1Item(item: StoredGs1Item): Gs1Item {
  const def = primaryKeyDef(item.ai);
  return {
    itemId: item.itemId,
    key: { ai: item.ai, name: def?.name ?? item.ai, value: item.value },
    qualifiers: item.qualifiers,
    uri: gs1UriOf(item),
    description: item.description,
    links: item.links.map(({ default: isDefault, ...l }) => ({ ...l, isDefault })),
    createdAt: item.createdAt.toISOString(),
    updatedAt: item.updatedAt.toISOString(),
  };
}

const LINKSET_HREF = /^https?:\/\/[a-zA-Z0-9./]/;

const invalid = (message: string, field?: string) => new AppError("VALIDATION_FAILED", message, { details: field ? { field } : undefined });

/** Creates the item, or replaces its description and links if the workspace already has it. */
export async function putItem(merchantId: string, raw: Gs1ItemInput): Promise<{ item: Gs1Item; created: boolean }> {
  const input = parseOrThrow(Gs1ItemInputSchema, raw, "GS1 item");
  const def = primaryKeyDef(input.key)!;
  let value: string;
  let qualifiers: Array<{ ai: string; value: string }>;
  try {
    value = checkKeyValue(def, input.value);
    qualifiers = checkQualifiers(def, input.qualifiers ?? []);
  } catch (error) {
    if (error instanceof Gs1SyntaxError) throw invalid(error.message, error.field);
    throw error;
  }
  const path = pathOf(def.ai, value, qualifiers);
  // On the workspace's own host (a domain it verified) nobody else registers keys: the shared host's rules
  // about who may claim a key (restricted numbers, prefixes, the daily limit) do not apply there.
  const ownHost = input.domainId === undefined ? undefined : await ownHostOf(merchantId, input.domainId);
  const scope = ownHost ? ownHostScope(ownHost, merchantId) : sharedScope();
  if (!matchesGs1Grammar(`${scope.origin}${path}`)) throw invalid(`${path} is not a GS1 Digital Link URI path by GS1's grammar`, "key");
  // Every workspace shares this host: a number many retailers reuse cannot have one owner on it.
  const restricted = ownHost ? undefined : restrictedNumberProblem(def, value);
  if (restricted) throw invalid(`${restricted}, so it cannot be registered on the shared resolver host ${scope.host}`, "value");

  const defaults = input.links.filter((l) => l.isDefault === true);
  if (defaults.length !== 1) {
    throw invalid(`Exactly one link must have isDefault: true (${defaults.length} do)`, "links");
  }
  // A menu code or listing named by `from` becomes its public URL, in this workspace only (gs1/sources.ts).
  const links = await resolveLinkSources(merchantId, input.links);
  const seen = new Set<string>();
  for (const link of links) {
    const same = `${link.linkType} ${link.href} ${(link.hreflang ?? []).join(",")} ${(link.context ?? []).join(",")} ${link.type ?? ""}`;
    if (seen.has(same)) throw invalid(`The link ${link.linkType} ${link.href} is listed twice with the same attributes`, "links");
    seen.add(same);
  }
  for (const link of links) {
    // GS1's linkset schema: an href matches ^https?://[a-zA-z0-9./]+ (no user name, %, - or ~ first).
    if (!LINKSET_HREF.test(link.href)) throw invalid(`The link ${link.href} cannot be served in a GS1 linkset: after http(s):// it must start with a letter, a digit, a dot or a slash`, "links");
  }
  for (const link of links) await assertDestinationAllowed(link.href, { merchantId });

  const host = scope.host;
  const prefixes = ownHost ? [] : prefixCandidates(def, value);
  await checkClaim({ merchantId, host, ai: def.ai, value, path }, prefixes, ownHost !== undefined);
  const { item, created } = await putGs1Item({
    merchantId,
    host,
    ai: def.ai,
    value,
    qualifiers,
    path,
    description: input.description ?? null,
    links: links.map((l) => ({
      linkType: l.linkType,
      href: l.href,
      title: l.title,
      hreflang: l.hreflang,
      type: l.type,
      context: l.context,
      default: l.isDefault === true,
      from: l.from,
    })),
  }, new Date(), prefixes, { ownHost: ownHost !== undefined });
  return { item: publicGs1Item(item), created };
}

/** The host of the workspace's domain `domainId`, refused unless the domain is the workspace's and active. */
async function ownHostOf(merchantId: string, domainId: string): Promise<string> {
  const domain = (await readDomainsById(merchantId, [domainId])).get(domainId);
  const refusal = domainRefusal(domainId, domain, "GS1 items");
  if (refusal) throw refusal;
  return domain!.hostname;
}

let limiter: RateLimiter | undefined;

/**
 * The limits of a claim, checked before the write (docs/gs1-resolver.md, "Who may claim a key"): a new item
 * within GS1_ITEMS_PER_WORKSPACE_MAX; a new key not under a prefix an operator approved for another
 * workspace; and, unless the workspace holds an approval or a DNS proof of the key's prefix, a new key
 * counted against `gs1KeyClaims`. Another workspace's key is left to putGs1Item's CONFLICT. On the
 * workspace's own host (`ownHost`) only the number of items is limited: nobody else claims keys there.
 */
async function checkClaim(input: { merchantId: string; host: string; ai: string; value: string; path: string }, prefixes: readonly string[], ownHost: boolean): Promise<void> {
  const standing = await readGs1ClaimStanding(input, prefixes);
  if (!standing.itemExists) {
    const held = await countGs1Items(input.merchantId);
    if (held >= GS1_ITEMS_PER_WORKSPACE_MAX) {
      throw new AppError("FORBIDDEN", `This workspace holds ${held} GS1 items, the most a workspace may hold (${GS1_ITEMS_PER_WORKSPACE_MAX}): nothing was registered`, {
        hint: "Delete items it no longer needs (lot and serial items first), or ask the service's operators.",
        details: { max: GS1_ITEMS_PER_WORKSPACE_MAX, held },
      });
    }
  }
  if (ownHost || standing.owner !== undefined) return;
  if (standing.approved && standing.approved.merchantId !== input.merchantId) throw approvedElsewhereError(input, standing.approved.prefix);
  if (standing.approved || standing.proven) return;
  limiter ??= new RateLimiter(firestoreQuotaStore);
  const decision = await limiter.take("gs1KeyClaims", { merchantId: input.merchantId });
  if (!decision.allowed) {
    const error = rateLimitedError(decision);
    throw new AppError("RATE_LIMITED", `${error.message}. New GS1 keys under a company prefix this workspace has not verified are limited to ${decision.limit} a day`, {
      hint: "Verify your GS1 company prefix: publish it on your verified domain (POST /api/gs1/prefixes) or ask the service's operators to approve it; keys under a verified prefix are not limited.",
      details: { ...error.details, rule: "gs1KeyClaims", companyPrefixes: prefixes },
    });
  }
}

export async function getItem(merchantId: string, itemId: string): Promise<Gs1Item> {
  const item = await readGs1Item(merchantId, itemId);
  if (!item) throw new AppError("NOT_FOUND", `No GS1 item ${itemId} in this workspace`);
  return publicGs1Item(item);
}

export async function listItems(merchantId: string, limit = 50, cursor?: string): Promise<{ items: Gs1Item[]; nextCursor: string | null }> {
  if (cursor !== undefined && !/^[A-Za-z0-9_-]{32}$/.test(cursor)) throw invalid("cursor is not one this list gave", "cursor");
  const page = await listGs1Items(merchantId, limit, cursor);
  return { items: page.items.map(publicGs1Item), nextCursor: page.next };
}

export async function removeItem(merchantId: string, itemId: string): Promise<{ itemId: string; deleted: true }> {
  if (!(await deleteGs1Item(merchantId, itemId))) throw new AppError("NOT_FOUND", `No GS1 item ${itemId} in this workspace`);
  return { itemId, deleted: true };
}

// ---- The point-of-sale QR code of an item: one answer for REST (qr.png) and the console's download ----

/**
 * The download's file name: GINC, GIAI and CPID values (GS1 character set 82) may hold `"`, `;`, `\` and
 * more, which in a Content-Disposition header would end the name or add parameters; anything but letters,
 * digits, `.`, `_` and `-` becomes `_`.
 */
export function downloadName(keyValue: string, compressed: boolean): string {
  return `gs1-${keyValue.replace(/[^A-Za-z0-9._-]/g, "_")}${compressed ? "-compressed" : ""}.png`;
}

/** The PNG of an item's point-of-sale QR code (gs1/qrCode.ts) and the headers its answer carries. */
export async function itemQrPng(merchantId: string, itemId: string, compressed: boolean): Promise<{ png: Buffer; headers: Record<string, string> }> {
  const item = await getItem(merchantId, itemId);
  const code = await gs1QrCode(item.uri, { compressed });
  return {
    png: code.png,
    headers: {
      "Content-Type": "image/png",
      "Content-Disposition": `inline; filename="${downloadName(item.key.value, compressed)}"`,
      "Cache-Control": "private, max-age=0",
      "X-Print-Min-Side-Mm": code.minSideMm.toFixed(1),
      "X-Gs1-Error-Correction": code.errorCorrection,
      "X-Gs1-Encoded-Uri": code.text,
    },
  };
}
