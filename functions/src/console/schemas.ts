// The console's request and response schemas (console/app.ts and the *Routes.ts files declare the routes).
// What another surface answers too is declared beside its domain code and imported here: a code, a design
// and a brand preset (codes/schemas.ts), a webhook and its deliveries (webhooks/operations.ts), a catalogue
// job (jobs/schemas.ts), a scan analytics answer (scans/analyticsSchemas.ts), a draft (menus/schemas.ts).
import { z } from "zod";
import { SCOPES, ScopeSchema } from "../auth/scopes";
import { text } from "../core/validation";
import { fields, newCodeShape, presetName } from "../codes/fields";
import { ids } from "../core/ids";
import { BULK_MAX_URLS } from "../core/limits";
import { CodeListQuerySchema } from "../codes/directory";
import { PublicBrandPresetSchema, PublicCodeSchema, publicCodeShape, PublicDesignSchema } from "../codes/schemas";
import { analyticsFiguresShape, campaignRollUpShape, codeRollUpShape, ruledScanOutput, ruleFiguresOutput } from "../scans/analyticsSchemas";
import { audioCodeOutputShape, challengeOutputShape, menuOutputShape, publicationShape } from "../menus/schemas";
import { PublicDeliverySchema } from "../webhooks/operations";
import { JOB_FIELDS } from "../jobs/rows";
import { REPORT_REASONS } from "../store/abuse";

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
  .object({ destinationUrl: fields.destinationUrl.optional(), title: fields.title.optional(), design: fields.design.nullable().optional(), keepLogo: z.boolean().optional(), domainId: fields.domainId.optional() })
  .strict();
/** A design tried on an existing code (its own payload and frame): the console's code page preview. */
export const CodeDesignPreviewSchema = z.object({ design: fields.design.nullable(), keepLogo: z.boolean().optional() }).strict();
export const DaysQuerySchema = z.object({ days: z.coerce.number().int().min(1).max(365).default(30) }).strict();
export const PublishSchema = z.object({ kind: z.enum(["codes", "menus", "challenges", "audioCodes"]), id: ids.recordId }).strict();
/** A code made in the console: the fields of svc.qr.create, plus whether to publish it in the same step. */
export const ConsoleNewCodeSchema = z.object({ ...newCodeShape, publish: z.boolean().optional() }).strict();
/** What decides a code's image; the title, campaign and tags do not change it. */
export const ConsolePreviewSchema = ConsoleNewCodeSchema.omit({ title: true, campaign: true, tags: true, publish: true });
/** A named brand preset: a design without a preset of its own. */
export const BrandPresetSchema = z.object({ design: fields.design.omit({ preset: true }) }).strict();
export const BrandPresetParams = z.object({ name: presetName }).strict();
/** One chunk of a spreadsheet import: up to the bulk limit of rows, each a new code's main fields. */
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
/** The code list's search, filters, sort and page: declared with the list (codes/directory.ts). */
export { CodeListQuerySchema };

// ---- Answers -------------------------------------------------------------------------------------------

const isoOrNull = z.string().nullable();
const ok = z.literal(true);

export const WorkspaceSchema = z.strictObject({ merchantId: z.string(), name: z.string(), ownerUid: z.string(), createdAt: z.string(), timeZone: z.string() });
export const WorkspaceCreatedSchema = z.strictObject({ created: z.boolean(), workspace: WorkspaceSchema });
export const MeSchema = z.strictObject({
  uid: z.string(),
  authMethod: z.enum(["api-key", "id-token", "session-cookie", "oauth"]),
  role: z.enum(["owner", "member"]).optional(),
  isAdmin: z.boolean(),
  scopes: z.array(ScopeSchema),
  workspace: WorkspaceSchema.nullable(),
});

/** An API key as the console shows it: never the key itself, except once when minted. */
export const PublicKeySchema = z.strictObject({
  keyId: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(ScopeSchema),
  uid: z.string(),
  createdAt: isoOrNull,
  lastUsedAt: isoOrNull,
  revokedAt: isoOrNull,
});
export const KeyListSchema = z.strictObject({ keys: z.array(PublicKeySchema) });
export const MintedKeySchema = PublicKeySchema.extend({ key: z.string(), notice: z.string() });

export const ClaimedSchema = z.strictObject({ ok, sandboxId: z.string(), merchantId: z.string(), code: PublicCodeSchema });

/** A code of the list, with its scans of the last 7 and 30 days. */
export const ListedCodeSchema = z.strictObject({ ...publicCodeShape, scans7: z.number().int(), scans30: z.number().int() });
export const CodePageSchema = z.strictObject({
  codes: z.array(ListedCodeSchema),
  /** Null where counting would read every code (a search). */
  total: z.number().int().nullable(),
  workspaceTotal: z.number().int(),
  campaigns: z.array(z.string()),
  nextCursor: z.string().nullable(),
});
export const ConsoleCodeSchema = z.strictObject(publicCodeShape);
/** One code as its owner sees it: with the operator's takedown, if any. */
export const OwnCodeSchema = z.strictObject({
  ...publicCodeShape,
  takenDown: z.strictObject({ reason: z.string(), at: z.string(), reportId: z.string().nullable() }).nullable(),
  /** Its password page's budget ran out (someone may be guessing): campaigns/passwordAlert.ts. */
  passwordNotice: z.strictObject({ at: z.string(), message: z.string() }).nullable(),
});

export const CodeAnalyticsSchema = z.strictObject({
  codeId: z.string(),
  uniqueQRCodeID: z.string(),
  dynamic: z.boolean(),
  ...analyticsFiguresShape,
  byRule: ruleFiguresOutput,
  scans: z.array(ruledScanOutput),
  scansListed: z.number().int(),
  scansTruncated: z.boolean(),
});
const summaryShape = {
  ...analyticsFiguresShape,
  byCampaign: z.array(z.strictObject(campaignRollUpShape)),
  topCodes: z.array(z.strictObject(codeRollUpShape)),
};
export const ScanSummarySchema = z.strictObject(summaryShape);
export const DashboardSchema = z.strictObject({
  ...summaryShape,
  topCodes: z.array(z.strictObject({ ...codeRollUpShape, title: z.string().nullable() })),
  codeCounts: z.strictObject({ total: z.number().int(), published: z.number().int(), drafts: z.number().int(), dynamic: z.number().int() }),
});

// The drafts as the tools return them (menus/schemas.ts), with when and by whom they were published.
export const AudioCodeDraftSchema = z.strictObject({ ...audioCodeOutputShape, ...publicationShape });
export const MenuDraftSchema = z.strictObject({ ...menuOutputShape, ...publicationShape });
export const ChallengeDraftSchema = z.strictObject({ ...challengeOutputShape, ...publicationShape });
export const PublishedSchema = z.strictObject({ id: z.string(), status: z.literal("published"), publishedAt: z.string() });
export const UnpublishedSchema = z.strictObject({ id: z.string(), status: z.literal("draft") });

const listingDetails = { businessName: z.string(), voiceAgentPhone: z.string(), email: z.string() };
/** A phone book listing as its workspace and moderators see it (listings/service.ts publicListing). */
export const ListingSchema = z.strictObject({
  domain: z.string(),
  ...listingDetails,
  status: ListingStatusSchema,
  pendingChange: z.strictObject(listingDetails).nullable(),
  page: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  approvedAt: isoOrNull,
  expiresAt: isoOrNull,
});
export const ListingListSchema = z.strictObject({ listings: z.array(ListingSchema) });

export const SessionStartedSchema = z.strictObject({ ok, expiresInSeconds: z.number() });
export const DoneSchema = z.strictObject({ ok });

export const BrandPresetListSchema = z.strictObject({ count: z.number().int(), presets: z.array(PublicBrandPresetSchema) });
export const BrandPresetSavedSchema = z.strictObject({ ok, preset: z.strictObject({ name: z.string(), design: PublicDesignSchema.nullable() }) });

export const TimeZoneSetSchema = z.strictObject({ ok, timeZone: z.string() });
export const MemberListSchema = z.strictObject({
  members: z.array(z.strictObject({ uid: z.string(), email: z.string().nullable(), role: z.enum(["owner", "member"]), createdAt: isoOrNull, you: z.boolean() })),
});

export const ImportedSchema = z.strictObject({ ok, count: z.number().int(), codes: z.array(ConsoleCodeSchema) });

/** How a CSV's columns map to code fields, with its first rows (jobs/rows.ts previewMapping). */
export const MappingPreviewSchema = z.strictObject({
  format: z.enum(["csv", "dub", "bitly"]),
  delimiter: z.enum([",", ";", "\t"]),
  headers: z.array(z.string()),
  mapping: z.record(z.string(), z.enum(JOB_FIELDS)),
  unmapped: z.array(z.string()),
  missing: z.array(z.enum(JOB_FIELDS)),
  warnings: z.array(z.string()),
  sample: z.array(z.strictObject({ row: z.number().int(), line: z.number().int(), cells: z.record(z.string(), z.string()) })),
  fields: z.array(z.enum(JOB_FIELDS)).readonly(),
});

/** An abuse report as moderators see it (abuse/service.ts publicReport). */
export const ReportSchema = z.strictObject({
  reportId: z.string(),
  subject: z.string(),
  uniqueQRCodeID: z.string().nullable(),
  url: z.string().nullable(),
  merchantId: z.string(),
  codeId: z.string(),
  destinationUrl: z.string(),
  reason: z.enum(REPORT_REASONS),
  details: z.string(),
  contact: z.string().nullable(),
  status: z.enum(["open", "takenDown", "dismissed"]),
  createdAt: z.string(),
  decidedAt: isoOrNull,
});
export const ReportsSchema = z.strictObject({ reports: z.array(ReportSchema) });
/** The queue grouped by what was reported (a code or a GS1 item), a page at a time (moderation/queue.ts). */
export const ReportGroupsSchema = z.strictObject({
  groups: z.array(z.strictObject({ subject: z.string(), kind: z.enum(["code", "gs1Item"]), url: z.string().nullable(), merchantId: z.string(), destinationUrl: z.string(), count: z.number().int(), reasons: z.record(z.string(), z.number().int()), latestAt: z.string(), reports: z.array(ReportSchema) })),
  nextCursor: z.string().nullable(),
});
export const SubjectDecidedSchema = z.strictObject({ subject: z.string(), status: z.enum(["takenDown", "dismissed"]), reports: z.number().int() });
export const ReportDecidedSchema = z.strictObject({ reportId: z.string(), status: z.enum(["open", "takenDown", "dismissed"]) });

/** A connected OAuth app's grant (console/connectedAppsRoutes.ts publicGrant). */
export const GrantSchema = z.strictObject({
  grantId: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  scopes: z.array(ScopeSchema),
  uid: z.string(),
  createdAt: isoOrNull,
  lastUsedAt: isoOrNull,
  revokedAt: isoOrNull,
  revokedReason: z.string().nullable(),
});
export const GrantListSchema = z.strictObject({ apps: z.array(GrantSchema) });

export const DeliveryListSchema = z.strictObject({ deliveries: z.array(PublicDeliverySchema) });
