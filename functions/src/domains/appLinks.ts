// A branded domain's app association files (docs/domains.md, "App links"): Apple's
// apple-app-site-association and Google's Digital Asset Links assetlinks.json, supplied by the merchant per
// domain, validated against their documented shapes with strict schemas, and served on the domain's host
// as 200 application/json with no redirect (wellKnownAnswer; the serving layer calls it).
import { z } from "zod";
import { AppError } from "../core/errors";
import type { Caller } from "../auth/caller";
import { appLinkForHost, readAppLinks, saveAppLinks, type AppLinkFile } from "../store/appLinks";

/** Each file's size once serialised: far above real files (a few kilobytes), well under a document's. */
export const APP_LINK_MAX_BYTES = 65_536;

const text = (max: number) => z.string().min(1).max(max);

// --- Apple: apple-app-site-association (developer.apple.com, "Supporting associated domains" and
// "applinks.Details"). An app identifier is the team's 10-character prefix and the bundle identifier.
const appId = z
  .string()
  .regex(/^[A-Z0-9]{10}\.[A-Za-z0-9.-]{1,155}$/, "an application identifier: the 10-character team ID, a dot and the bundle ID (ABCDE12345.com.example.app)");
const appIds = z.array(appId).min(1).max(100);
const appleDefaults = z.object({ caseSensitive: z.boolean().optional(), percentEncoded: z.boolean().optional() }).strict();
const appleComponent = z
  .object({
    "/": text(1024).optional(),
    "?": z.union([text(1024), z.record(text(256), z.string().max(1024))]).optional(),
    "#": text(1024).optional(),
    exclude: z.boolean().optional(),
    comment: z.string().max(1024).optional(),
    caseSensitive: z.boolean().optional(),
    percentEncoded: z.boolean().optional(),
  })
  .strict();
const appleDetail = z
  .object({
    appID: appId.optional(),
    appIDs: appIds.optional(),
    components: z.array(appleComponent).max(500).optional(),
    paths: z.array(text(1024)).max(500).optional().describe("The format before iOS 13; still read by older systems"),
    defaults: appleDefaults.optional(),
  })
  .strict()
  .refine((d) => d.appID !== undefined || d.appIDs !== undefined, "each entry of details names its app: appID or appIDs");
const appleApps = z.object({ apps: appIds }).strict();

export const AppleAppSiteAssociationSchema = z
  .object({
    applinks: z
      .object({
        apps: z.array(z.string()).max(0).optional().describe("Must be empty where present (older systems required the key)"),
        details: z.array(appleDetail).max(100),
        defaults: appleDefaults.optional(),
        substitutionVariables: z.record(z.string().regex(/^[A-Za-z0-9_]{1,64}$/), z.array(text(256)).max(100)).optional(),
      })
      .strict()
      .optional(),
    webcredentials: appleApps.optional(),
    appclips: appleApps.optional(),
    activitycontinuation: appleApps.optional(),
  })
  .strict()
  .refine((f) => Object.keys(f).length > 0, "at least one of applinks, webcredentials, appclips or activitycontinuation")
  .meta({ title: "AppleAppSiteAssociation", description: "The apple-app-site-association file, as Apple documents it" });

// --- Google: Digital Asset Links statement list (developers.google.com/digital-asset-links/v1/statements).
const fingerprint = z.string().regex(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/, "an upper-case SHA-256 certificate fingerprint: 32 hex pairs separated by colons");
const relation = z.string().regex(/^[a-z_]+\/[a-z_]+\.[a-z_]+$/, "a relation string such as delegate_permission/common.handle_all_urls").max(128);
const androidComponent = z
  .object({ "/": text(1024).optional(), "?": z.record(text(256), z.string().max(1024)).optional(), "#": text(1024).optional(), exclude: z.boolean().optional(), comments: z.string().max(1024).optional() })
  .strict();
const target = z.discriminatedUnion("namespace", [
  z.object({ namespace: z.literal("android_app"), package_name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, "a fully qualified package name").max(255), sha256_cert_fingerprints: z.array(fingerprint).min(1).max(20) }).strict(),
  z.object({ namespace: z.literal("web"), site: z.string().regex(/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/, "a site root: http[s]://host[:port]").max(300) }).strict(),
]);
const statement = z
  .object({
    relation: z.array(relation).min(1).max(20),
    target,
    relation_extensions: z.record(relation, z.object({ dynamic_app_link_components: z.array(androidComponent).max(500).optional() }).strict()).optional(),
  })
  .strict();
const include = z.object({ include: z.string().regex(/^https:\/\/[^\s]+$/, "an https URL of another statement list").max(2048) }).strict();

export const AssetLinksSchema = z
  .array(z.union([statement, include]))
  .min(1)
  .max(100)
  .meta({ title: "AssetLinks", description: "The assetlinks.json statement list, as Google's Digital Asset Links documents it" });

const sized = <T extends z.ZodType>(schema: T, file: string) =>
  schema.refine((value) => Buffer.byteLength(JSON.stringify(value)) <= APP_LINK_MAX_BYTES, `${file} may be at most ${APP_LINK_MAX_BYTES} bytes once serialised`);

export const AppLinksInputSchema = z
  .object({
    appleAppSiteAssociation: sized(AppleAppSiteAssociationSchema, "apple-app-site-association").nullable().optional().describe("The file to serve; null removes it; absent keeps it"),
    assetLinks: sized(AssetLinksSchema, "assetlinks.json").nullable().optional().describe("The file to serve; null removes it; absent keeps it"),
  })
  .strict()
  .refine((b) => b.appleAppSiteAssociation !== undefined || b.assetLinks !== undefined, "give appleAppSiteAssociation, assetLinks or both")
  .meta({ title: "AppLinksInput" });

export const AppLinksSchema = z
  .object({
    domainId: z.string(),
    hostname: z.string(),
    appleAppSiteAssociation: z.record(z.string(), z.unknown()).nullable().describe("Served at https://<hostname>/.well-known/apple-app-site-association"),
    assetLinks: z.array(z.record(z.string(), z.unknown())).nullable().describe("Served at https://<hostname>/.well-known/assetlinks.json"),
    updatedAt: z.string().nullable(),
  })
  .strict()
  .meta({ title: "AppLinks" });

export type AppLinks = z.infer<typeof AppLinksSchema>;

const publicOf = (domainId: string, s: { hostname: string; apple: string | null; android: string | null; updatedAt: Date | null }): AppLinks => ({
  domainId,
  hostname: s.hostname,
  appleAppSiteAssociation: s.apple === null ? null : (JSON.parse(s.apple) as Record<string, unknown>),
  assetLinks: s.android === null ? null : (JSON.parse(s.android) as Array<Record<string, unknown>>),
  updatedAt: s.updatedAt ? s.updatedAt.toISOString() : null,
});

/** GET: the domain's files (any member). */
export async function getAppLinks(caller: Caller, domainId: string): Promise<AppLinks> {
  const s = await readAppLinks(caller.merchantId, domainId);
  if (!s) throw new AppError("NOT_FOUND", `No domain ${domainId} in this workspace`);
  return publicOf(domainId, s);
}

/** PUT: sets or removes the files given (the owner; `owner` is the domain service's role check). */
export async function putAppLinks(caller: Caller, domainId: string, input: z.infer<typeof AppLinksInputSchema>, owner: (caller: Caller) => Promise<void>, now = new Date()): Promise<AppLinks> {
  await owner(caller);
  const files: Partial<Record<AppLinkFile, string | null>> = {};
  // Stored as the text to serve: the validated value, serialised once.
  if (input.appleAppSiteAssociation !== undefined) files.apple = input.appleAppSiteAssociation === null ? null : JSON.stringify(input.appleAppSiteAssociation);
  if (input.assetLinks !== undefined) files.android = input.assetLinks === null ? null : JSON.stringify(input.assetLinks);
  const saved = await saveAppLinks(caller.merchantId, domainId, files, { uid: caller.uid, authMethod: caller.authMethod, keyPrefix: caller.keyPrefix ?? null, tool: "domains.app_links" }, now);
  return publicOf(domainId, saved);
}

/** The well-known paths served from a domain's files (exact paths: no trailing slash, no query matters). */
export const WELL_KNOWN_FILES: Readonly<Record<string, AppLinkFile>> = {
  "/.well-known/apple-app-site-association": "apple",
  "/.well-known/assetlinks.json": "android",
};

/** Which file a request path asks for, if any. */
export const wellKnownFileOf = (path: string): AppLinkFile | undefined => (Object.hasOwn(WELL_KNOWN_FILES, path) ? WELL_KNOWN_FILES[path] : undefined);

export interface WellKnownAnswer {
  status: 200;
  contentType: "application/json";
  body: string;
}

/** The answer for a stored file: 200 JSON, never a redirect (both platforms refuse redirects); null when there is none. */
export const wellKnownAnswerOf = (body: string | null): WellKnownAnswer | null => (body === null ? null : { status: 200, contentType: "application/json", body });

/**
 * What to serve for (host, path) on a branded host: the file of the verified domain that holds the host,
 * or null (the caller answers its 404) for other paths, unknown hosts and files not supplied.
 */
export async function wellKnownAnswer(host: string, path: string, read: (hostname: string, file: AppLinkFile) => Promise<string | null> = appLinkForHost): Promise<WellKnownAnswer | null> {
  const file = wellKnownFileOf(path);
  if (!file) return null;
  const hostname = host.trim().toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
  if (!hostname || hostname.length > 253) return null;
  return wellKnownAnswerOf(await read(hostname, file));
}
