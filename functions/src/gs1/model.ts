// A GS1 item: one GS1 key (a primary key, optionally with key qualifiers) registered by a workspace, and
// its links (docs/data-model.md, "GS1 items"). The schemas here are shared by REST (bulk/gs1Routes.ts) and
// MCP (mcp/tools/gs1*.ts); gs1/service.ts checks what a schema cannot (check digits, one default link).
import { z } from "zod";
import { httpUrl, text } from "../core/validation";
import { ids } from "../core/ids";
import { ASSIGNABLE_LINK_TYPES } from "./linkTypes";
import { PRIMARY_KEYS } from "./keys";

/** Bounds (docs/data-model.md, "GS1 items: bounds"). */
export const GS1_LINKS_MAX = 50;
export const GS1_TITLE_MAX = 200;
export const GS1_LANGUAGES_MAX = 10;
export const GS1_CONTEXTS_MAX = 10;
export const GS1_DESCRIPTION_MAX = 200;
/** Items a workspace may hold (one list query per page; a catalogue of this size is a few pages of 100). */
export const GS1_ITEMS_PER_WORKSPACE_MAX = 10_000;

const LINK_TYPE_CURIES = ASSIGNABLE_LINK_TYPES.map((t) => `gs1:${t}`) as [string, ...string[]];

/**
 * A language tag as GS1's linkset JSON schema allows in `hreflang` (`^\w{2}$` or `^\w{2}-\w{2}$`): a
 * 2-letter language, optionally with a 2-letter region (en, fr, en-GB). Longer BCP 47 tags (fil, es-419,
 * zh-Hant) would make the served linkset invalid.
 */
const languageTag = z
  .string()
  .regex(/^[A-Za-z]{2}(-[A-Za-z]{2})?$/, "A 2-letter language, optionally with a 2-letter region, as GS1's linkset schema allows: en, fr or en-GB");

const mediaType = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}$/, "A media type such as text/html or application/pdf");

const contextValue = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "1 to 64 letters, digits or _.:- (a country code such as GB, or a context name)");

/**
 * Where a link's target can come from instead of an href (gs1/sources.ts): one of the workspace's QR codes
 * that leads to its menu, or its approved phone-book listing. Resolved server-side, in the caller's
 * workspace only, to the public URL, with the matching link type (gs1:menuInfo, gs1:support) and title.
 */
export const Gs1LinkSourceSchema = z
  .object({
    menuCodeId: ids.codeId.optional().describe("A QR code of this workspace that leads to its menu (codeId from svc.qr.create or svc.qr.list): the link is the code's public scan URL, link type gs1:menuInfo"),
    listingId: z.string().trim().toLowerCase().min(3).max(253).regex(/^[A-Za-z0-9.-]+$/, "A listed domain such as example.com").optional().describe("The domain of this workspace's approved phone-book listing: the link is its public page /d/<domain>, link type gs1:support"),
  })
  .strict()
  .superRefine((from, ctx) => {
    const given = [from.menuCodeId, from.listingId].filter((v) => v !== undefined).length;
    if (given !== 1) ctx.addIssue({ code: "custom", message: "Give exactly one of menuCodeId or listingId" });
  })
  .meta({ title: "Gs1LinkSource" });

export type Gs1LinkSource = z.infer<typeof Gs1LinkSourceSchema>;

export const Gs1LinkInputSchema = z
  .object({
    linkType: z.enum(LINK_TYPE_CURIES).optional().describe("A link type of the GS1 Web Vocabulary as a CURIE: gs1:pip, gs1:recipeInfo, gs1:promotion, gs1:sustainabilityInfo, gs1:recallStatus... Required with href; with from it defaults to the source's (gs1:menuInfo, gs1:support)"),
    href: httpUrl().optional().describe("The target: an http(s) URL. Give href or from, not both"),
    from: Gs1LinkSourceSchema.optional().describe("Instead of href: {menuCodeId} or {listingId} of this workspace, resolved to its public URL"),
    title: text(GS1_TITLE_MAX).optional().describe("Human-readable title (the resolver shows it in the linkset). Required with href; with from it defaults to the code's title or the listing's business name"),
    hreflang: z.array(languageTag).min(1).max(GS1_LANGUAGES_MAX).optional().describe("The target's language(s)"),
    type: mediaType.optional().describe("The target's media type, e.g. text/html"),
    context: z.array(contextValue).min(1).max(GS1_CONTEXTS_MAX).optional().describe("Context values (e.g. an ISO 3166 country code)"),
    isDefault: z.boolean().optional().describe("The default link: exactly one link of an item is"),
  })
  .strict()
  .superRefine((link, ctx) => {
    if (link.href !== undefined && link.from !== undefined) ctx.addIssue({ code: "custom", path: ["from"], message: "Give href or from, not both" });
    if (link.href === undefined && link.from === undefined) ctx.addIssue({ code: "custom", path: ["href"], message: "Give href (an http(s) URL) or from ({menuCodeId} or {listingId})" });
    if (link.href !== undefined && link.linkType === undefined) ctx.addIssue({ code: "custom", path: ["linkType"], message: "A link with href needs its linkType (a GS1 link type such as gs1:pip)" });
    if (link.href !== undefined && link.title === undefined) ctx.addIssue({ code: "custom", path: ["title"], message: "A link with href needs its title" });
  })
  .meta({ title: "Gs1LinkInput" });

export type Gs1LinkInput = z.infer<typeof Gs1LinkInputSchema>;

const KEY_NAMES = PRIMARY_KEYS.flatMap((k) => [k.ai, k.name]) as [string, ...string[]];

export const Gs1QualifierSchema = z
  .object({
    ai: z.string().regex(/^[0-9]{2,4}$/).describe("The qualifier's AI: 22 (CPV), 10 (lot), 21 (serial) for a GTIN; 254 for a GLN..."),
    value: z.string().min(1).max(30),
  })
  .strict();

export const Gs1ItemInputSchema = z
  .object({
    key: z.enum(KEY_NAMES).default("01").describe("The primary key, by AI or name: 01 or gtin (default), 414 or gln, 00 or sscc, ..."),
    value: z.string().trim().min(1).max(34).describe("The key's value with its check digit: a GTIN of 8, 12, 13 or 14 digits is stored as 14"),
    qualifiers: z.array(Gs1QualifierSchema).max(3).optional().describe("Key qualifiers in the standard's order, e.g. [{ai: '10', value: 'LOT42'}, {ai: '21', value: 'S1'}]"),
    description: text(GS1_DESCRIPTION_MAX).optional().describe("What the item is (the linkset's itemDescription)"),
    links: z.array(Gs1LinkInputSchema).min(1).max(GS1_LINKS_MAX).describe(`1 to ${GS1_LINKS_MAX} links, exactly one with isDefault: true`),
    domainId: ids.domainId
      .optional()
      .describe("Register the item on this active domain's host (https://<host>/01/...) instead of the service's shared resolver host: on its own host a workspace owns every key it registers. The same key on another host is another item"),
  })
  .strict()
  .meta({ title: "Gs1ItemInput" });

export type Gs1ItemInput = z.input<typeof Gs1ItemInputSchema>;

export const Gs1LinkSchema = z
  .object({
    linkType: z.string(),
    href: z.string(),
    title: z.string(),
    hreflang: z.array(z.string()).optional(),
    type: z.string().optional(),
    context: z.array(z.string()).optional(),
    isDefault: z.boolean(),
    from: z
      .object({ menuCodeId: z.string().optional(), listingId: z.string().optional() })
      .optional()
      .describe("Present when the link was attached from a QR code (menuCodeId) or a phone-book listing (listingId)"),
  })
  .meta({ title: "Gs1Link" });

export const Gs1ItemSchema = z
  .object({
    itemId: z.string(),
    key: z.object({ ai: z.string(), name: z.string(), value: z.string() }),
    qualifiers: z.array(z.object({ ai: z.string(), value: z.string() })),
    uri: z.string().describe("The item's GS1 Digital Link URI: on the service's shared resolver host, or on the workspace's own domain's host it was registered on"),
    description: z.string().nullable(),
    links: z.array(Gs1LinkSchema),
    createdAt: z.string().describe("ISO 8601"),
    updatedAt: z.string().describe("ISO 8601"),
  })
  .meta({ title: "Gs1Item" });

export type Gs1Item = z.infer<typeof Gs1ItemSchema>;
export type Gs1Link = z.infer<typeof Gs1LinkSchema>;

/** An item as registering answers it (MCP svc.gs1.set_item, the console). */
export const Gs1ItemSavedSchema = Gs1ItemSchema.extend({ created: z.boolean().describe("true when the item is new, false when its links were replaced") }).strict();

export const Gs1ItemListSchema = z
  .object({ items: z.array(Gs1ItemSchema), nextCursor: z.string().nullable().describe("Pass as cursor for the next page; null on the last") })
  .meta({ title: "Gs1ItemList" });

export const Gs1ItemDeletedSchema = z.object({ itemId: z.string(), deleted: z.literal(true) }).meta({ title: "Gs1ItemDeleted" });

/** An itemId as the API gives it (path parameter of REST and console routes). */
export const Gs1ItemParams = z.object({ itemId: z.string().regex(/^[A-Za-z0-9_-]{32}$/, "An itemId as this API gives it") }).strict();

/** The query of a point-of-sale QR code: the compressed URI form or not. */
export const Gs1QrQuery = z
  .object({ compressed: z.enum(["true", "false"]).optional().describe("true: encode the compressed form of the URI (GS1 Digital Link: Compression)") })
  .strict();
