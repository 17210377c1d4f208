import { z } from "zod";
import { SCOPES, ScopeSchema } from "../auth/scopes";
import { text } from "../core/validation";
import { fields, newCodeShape, presetName } from "../codes/fields";
import { ids } from "../core/ids";
import { BULK_MAX_URLS, CAMPAIGN_MAX, CODE_SEARCH_MAX } from "../core/limits";
import { CODE_LIST_SORTS } from "../codes/directory";

export const CreateWorkspaceSchema = z.object({ name: text(100).optional() }).strict();
export const MintKeySchema = z
  .object({
    name: text(100).optional(),
    scopes: z.array(ScopeSchema).min(1, "Choose at least one scope").max(SCOPES.length),
  })
  .strict();
export const SessionSchema = z.object({ idToken: z.string().min(1).max(8192) }).strict();
export const ClaimSchema = z.object({ claimToken: z.string().trim().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "Must be a claim token from the sandbox response") }).strict();
export const ListingStatusSchema = z.enum(["pending", "approved", "rejected"]);
export const CodeChangeSchema = z
  .object({ destinationUrl: fields.destinationUrl.optional(), title: fields.title.optional(), design: fields.design.nullable().optional(), keepLogo: z.boolean().optional() })
  .strict();
/** A design tried on an existing code (its own payload and frame): the console's code page preview. */
export const CodeDesignPreviewSchema = z.object({ design: fields.design.nullable(), keepLogo: z.boolean().optional() }).strict();
export const DaysQuerySchema = z.object({ days: z.coerce.number().int().min(1).max(365).default(30) }).strict();
export const DraftKindSchema = z.enum(["menus", "challenges", "audioCodes"]);
export const PublishSchema = z.object({ kind: z.enum(["codes", "menus", "challenges", "audioCodes"]), id: ids.recordId }).strict();
/** A code made in the console: the fields of svc.qr.create, plus whether to publish it in the same step. */
export const ConsoleNewCodeSchema = z.object({ ...newCodeShape, publish: z.boolean().optional() }).strict();
/** What decides a code's image; the title, campaign and tags do not change it. */
export const ConsolePreviewSchema = ConsoleNewCodeSchema.omit({ title: true, campaign: true, tags: true, publish: true });
/** One chunk of a spreadsheet import: up to the bulk limit of rows, each a new code's main fields. */
/** A named brand preset: a design without a preset of its own. */
export const BrandPresetSchema = z.object({ design: fields.design.omit({ preset: true }) }).strict();
export const BrandPresetParams = z.object({ name: presetName }).strict();
export const ConsoleImportSchema = z
  .object({
    rows: z
      .array(z.object({ title: newCodeShape.title, destinationUrl: newCodeShape.destinationUrl, campaign: newCodeShape.campaign, tags: newCodeShape.tags }).strict())
      .min(1, "Give at least one row")
      .max(BULK_MAX_URLS, `At most ${BULK_MAX_URLS} rows per call`),
    publish: z.boolean().optional(),
    /** One design for every row of the chunk (a preset by name is the usual choice). */
    design: newCodeShape.design,
  })
  .strict();
/** The code list's search, filters, sort and page (codes/directory.ts). */
export const CodeListQuerySchema = z
  .object({
    q: z.string().max(CODE_SEARCH_MAX).optional(),
    kind: z.enum(["static", "dynamic"]).optional(),
    status: z.enum(["draft", "published"]).optional(),
    campaign: z.string().max(CAMPAIGN_MAX).optional(),
    tag: fields.tags.element.optional(),
    sort: z.enum(CODE_LIST_SORTS).default("created"),
    order: z.enum(["asc", "desc"]).optional(),
    cursor: z.string().max(2000).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
  })
  .strict();
