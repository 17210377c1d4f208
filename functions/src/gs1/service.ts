// GS1 items of a workspace: register or replace, read, list, delete (REST: bulk/gs1Routes.ts; MCP:
// mcp/tools/gs1*.ts). Every refusal is VALIDATION_FAILED with what is wrong (a check digit, a qualifier's
// order, the default link), written before anything is stored; a key another workspace owns is CONFLICT.
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import { parseOrThrow } from "../core/validation";
import { assertDestinationAllowed } from "../abuse/service";
import {
  deleteGs1Item,
  listGs1Items,
  putGs1Item,
  readGs1Item,
  type StoredGs1Item,
} from "../store/gs1Items";
import { checkKeyValue, checkQualifiers, Gs1SyntaxError, pathOf, primaryKeyDef } from "./keys";
import { matchesGs1Grammar } from "./grammar";
import { resolveLinkSources } from "./sources";
import { Gs1ItemInputSchema, type Gs1Item, type Gs1ItemInput } from "./model";
import { gs1QrCode } from "./qrCode";

/** The resolver's public origin (https://host) and host: the dynamic-link host, where /qr/<id> is served too. */
export function resolverOrigin(): string {
  return new URL(getConfig().dynamicLinkUrl).origin;
}
export const resolverHost = () => new URL(resolverOrigin()).host;

export function publicGs1Item(item: StoredGs1Item): Gs1Item {
  const def = primaryKeyDef(item.ai);
  return {
    itemId: item.itemId,
    key: { ai: item.ai, name: def?.name ?? item.ai, value: item.value },
    qualifiers: item.qualifiers,
    uri: `${resolverOrigin()}${item.path}`,
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
  const origin = resolverOrigin();
  if (!matchesGs1Grammar(`${origin}${path}`)) throw invalid(`${path} is not a GS1 Digital Link URI path by GS1's grammar`, "key");

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

  const { item, created } = await putGs1Item({
    merchantId,
    host: new URL(origin).host,
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
  });
  return { item: publicGs1Item(item), created };
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

/** The PNG of an item's point-of-sale QR code (gs1/qrCode.ts) and the headers its answer carries. */
export async function itemQrPng(merchantId: string, itemId: string, compressed: boolean): Promise<{ png: Buffer; headers: Record<string, string> }> {
  const item = await getItem(merchantId, itemId);
  const code = await gs1QrCode(item.uri, { compressed });
  return {
    png: code.png,
    headers: {
      "Content-Type": "image/png",
      "Content-Disposition": `inline; filename="gs1-${item.key.value}${compressed ? "-compressed" : ""}.png"`,
      "Cache-Control": "private, max-age=0",
      "X-Print-Min-Side-Mm": code.minSideMm.toFixed(1),
      "X-Gs1-Error-Correction": code.errorCorrection,
      "X-Gs1-Encoded-Uri": code.text,
    },
  };
}
