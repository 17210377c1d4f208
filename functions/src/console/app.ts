// Console HTTP API for signed-in users (ID token or session cookie; never an API key): workspace,
// API keys, session cookies, codes and drafts, moderation. Mounted at /api/console on the app host.
// Every route is a console route (console/route.ts): an endpoint with own addresses only, no CORS, changes
// rate limited, and a response schema; `ConsoleApi`, the table's types, is what the browser's client reads.
import type { Request, Response } from "express";
import { z } from "zod";
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import { ids } from "../core/ids";
import { logKeyMinted, logKeyRevoked, logSandboxClaimed } from "../core/log";
import { createRestApp } from "../http/rest";
import { mountEndpoints } from "../http/endpoint";
import { SESSION_COOKIE_NAME, verifyUser } from "../auth/caller";
import { endSession, startSession } from "../auth/sessions";
import { listApiKeys, revokeApiKey, type ApiKeyRecord } from "../store/apiKeys";
import { mintApiKey } from "../auth/apiKeys";
import { ensureWorkspaceForOwner, getWorkspace } from "../store/workspaces";
import {
  ClaimedSchema,
  ClaimSchema,
  CodeAnalyticsSchema,
  CodeChangeSchema,
  CodeListQuerySchema,
  CodePageSchema,
  ConsoleCodeSchema,
  CreateWorkspaceSchema,
  DashboardSchema,
  DaysQuerySchema,
  DoneSchema,
  AudioCodeDraftSchema,
  ChallengeDraftSchema,
  MenuDraftSchema,
  KeyListSchema,
  ListingListSchema,
  ListingSchema,
  ListingStatusSchema,
  MeSchema,
  MintedKeySchema,
  MintKeySchema,
  PublicKeySchema,
  PublishedSchema,
  PublishSchema,
  ScanSummarySchema,
  SessionSchema,
  SessionStartedSchema,
  WorkspaceCreatedSchema,
} from "./schemas";
import { consoleRoute, routeTable, type ApiOf } from "./route";
import { appLinkRoutes } from "./appLinkRoutes";
import { claimSandboxCode } from "../sandbox/service";
import { moderateListing, publicListing } from "../listings/service";
import { normalizeDomain } from "../listings/domain";
import { listListings } from "../store/listings";
import { listCodePage, workspaceDashboard } from "../codes/directory";
import { listDrafts, type DraftKind, type DraftRecords } from "../store/drafts";
import { publicAudioCode, publicChallenge, publicMenu, publicationOf } from "../menus/model";
import { publish } from "../codes/publish";
import { publicCode } from "../codes/model";
import { updateCode } from "../codes/service";
import { codeAnalytics, scanSummary } from "../scans/analytics";
import { connectedAppsRoutes } from "./connectedAppsRoutes";
import { codeRoutes } from "./codeRoutes";

export function publicKey(record: ApiKeyRecord) {
  return {
    keyId: record.keyId,
    name: record.name,
    prefix: record.prefix,
    scopes: record.scopes,
    uid: record.uid,
    createdAt: record.createdAt?.toISOString() ?? null,
    lastUsedAt: record.lastUsedAt?.toISOString() ?? null,
    revokedAt: record.revokedAt?.toISOString() ?? null,
  };
}

const CodeParams = z.object({ codeId: ids.codeId }).strict();
const KeyParams = z.object({ id: ids.keyId }).strict();
const ListingParams = z
  .object({
    domain: z.string().max(253).refine((d) => normalizeDomain(d) === d, "Must be a normalised domain name, e.g. example.com"),
    action: z.enum(["approve", "reject"]),
  })
  .strict();
const ReasonQuery = z.object({ reason: z.string().max(500).optional() }).strict();
const StatusQuery = z.object({ status: ListingStatusSchema.default("pending") }).strict();
const NoQuery = z.object({}).strict();

/** A console route listing a workspace's newest drafts of `kind` (at most 100), as the tools return them and published when. */
const draftList = <K extends DraftKind, S extends z.ZodType>(kind: K, item: S, shown: (draft: DraftRecords[K]) => z.input<S>) =>
  consoleRoute({
    method: "GET",
    path: `/api/console/drafts/${kind}`,
    response: z.strictObject({ items: z.array(item) }),
    summary: `List the workspace's ${kind}`,
    credential: "member",
    async handle({ caller }) {
      return { items: (await listDrafts(caller.merchantId, kind, 100)).map(shown) };
    },
  });

const workspaceJson = <W extends { createdAt: Date }>(w: W) => ({ ...w, createdAt: w.createdAt.toISOString() });

const revokeKey = <M extends "POST" | "DELETE", Path extends string>(method: M, path: Path) =>
  consoleRoute({
    method,
    path,
    summary: "Revoke an API key",
    credential: "member",
    params: KeyParams,
    response: PublicKeySchema,
    limit: "consoleWrites",
    async handle({ caller, params }) {
      const record = await revokeApiKey(caller.merchantId, params.id, caller.role === "owner" ? undefined : caller.uid);
      logKeyRevoked({ merchantId: record.merchantId, keyId: record.keyId, prefix: record.prefix, byUid: caller.uid });
      return publicKey(record);
    },
  });

const endpoints = routeTable(
  consoleRoute({
    method: "POST",
    path: "/api/console/workspace",
    response: WorkspaceCreatedSchema,
    summary: "Create the signed-in user's workspace (or return the one they own)",
    credential: "user",
    body: CreateWorkspaceSchema,
    limit: "consoleWrites",
    async handle({ user, body, res }) {
      const name = body.name ?? `${user.email?.split("@")[0] ?? "My"} workspace`;
      const { workspace, created } = await ensureWorkspaceForOwner(user.uid, name);
      res.status(created ? 201 : 200);
      return { created, workspace: workspaceJson(workspace) };
    },
  }),
  consoleRoute({
    method: "GET",
    path: "/api/console/me",
    response: MeSchema,
    summary: "The signed-in member, their role and workspace",
    credential: "member",
    async handle({ caller }) {
      const workspace = await getWorkspace(caller.merchantId);
      return {
        uid: caller.uid,
        authMethod: caller.authMethod,
        role: caller.role,
        isAdmin: caller.isAdmin,
        scopes: [...caller.scopes],
        workspace: workspace ? workspaceJson(workspace) : null,
      };
    },
  }),
  consoleRoute({
    method: "GET",
    path: "/api/console/keys",
    response: KeyListSchema,
    summary: "List the workspace's API keys",
    credential: "member",
    async handle({ caller }) {
      return { keys: (await listApiKeys(caller.merchantId)).map(publicKey) };
    },
  }),
  consoleRoute({
    method: "POST",
    path: "/api/console/keys",
    response: MintedKeySchema,
    summary: "Mint an API key (shown once)",
    credential: "member",
    body: MintKeySchema,
    limit: "consoleWrites",
    async handle({ caller, body, res }) {
      const { key, record } = await mintApiKey({ merchantId: caller.merchantId, uid: caller.uid, name: body.name ?? "API key", scopes: body.scopes });
      logKeyMinted({ merchantId: caller.merchantId, keyId: record.keyId, prefix: record.prefix, uid: caller.uid, scopes: record.scopes });
      res.status(201);
      return { key, ...publicKey(record), notice: "This is the only time the key is shown. Store it now." };
    },
  }),
  revokeKey("POST", "/api/console/keys/:id/revoke"),
  revokeKey("DELETE", "/api/console/keys/:id"),
  consoleRoute({
    method: "POST",
    path: "/api/console/claims",
    response: ClaimedSchema,
    summary: "Claim a sandbox code into the workspace",
    credential: "user",
    body: ClaimSchema,
    limit: "consoleWrites",
    async handle({ user, body, res }) {
      const claimed = await claimSandboxCode(user, body.claimToken);
      logSandboxClaimed({ sandboxId: claimed.sandboxId, merchantId: claimed.merchantId, codeId: claimed.code.codeId, uid: user.uid });
      res.status(201);
      return claimed;
    },
  }),
  // Workspace data for the console pages, and publishing (draft to published), which no tool can do.
  consoleRoute({
    method: "GET",
    path: "/api/console/codes",
    response: CodePageSchema,
    summary: "One page of the workspace's codes with recent scan counts",
    credential: "member",
    query: CodeListQuerySchema,
    async handle({ caller, query }) {
      const page = await listCodePage(caller.merchantId, query);
      return { ...page, codes: page.codes.map((c) => ({ ...publicCode(c.code), scans7: c.scans7, scans30: c.scans30 })) };
    },
  }),
  consoleRoute({
    method: "POST",
    path: "/api/console/codes/:codeId",
    response: ConsoleCodeSchema,
    summary: "Change a code (title, destination, campaign, design)",
    credential: "member",
    params: CodeParams,
    body: CodeChangeSchema,
    limit: "consoleWrites",
    async handle({ caller, params, body }) {
      return publicCode(await updateCode(caller.merchantId, { codeId: params.codeId }, body));
    },
  }),
  consoleRoute({
    method: "GET",
    path: "/api/console/codes/:codeId/analytics",
    response: CodeAnalyticsSchema,
    limit: "consoleAnalytics",
    summary: "Scan analytics of one code",
    credential: "member",
    params: CodeParams,
    query: DaysQuerySchema,
    async handle({ caller, params, query }) {
      return codeAnalytics(caller.merchantId, { codeId: params.codeId }, query.days);
    },
  }),
  consoleRoute({
    method: "GET",
    path: "/api/console/analytics",
    response: ScanSummarySchema,
    limit: "consoleAnalytics",
    summary: "Scan summary of the workspace",
    credential: "member",
    query: DaysQuerySchema,
    async handle({ caller, query }) {
      return scanSummary(caller.merchantId, query.days);
    },
  }),
  consoleRoute({
    method: "GET",
    path: "/api/console/dashboard",
    response: DashboardSchema,
    limit: "consoleAnalytics",
    summary: "The workspace dashboard",
    credential: "member",
    query: DaysQuerySchema,
    async handle({ caller, query }) {
      return workspaceDashboard(caller.merchantId, query.days);
    },
  }),
  draftList("audioCodes", AudioCodeDraftSchema, (draft) => ({ ...publicAudioCode(draft), ...publicationOf(draft) })),
  draftList("menus", MenuDraftSchema, (draft) => ({ ...publicMenu(draft), ...publicationOf(draft) })),
  draftList("challenges", ChallengeDraftSchema, (draft) => ({ ...publicChallenge(draft), ...publicationOf(draft) })),
  consoleRoute({
    method: "POST",
    path: "/api/console/publish",
    response: PublishedSchema,
    summary: "Publish a draft",
    credential: "member",
    body: PublishSchema,
    limit: "consoleWrites",
    async handle({ caller, body }) {
      return publish(caller.merchantId, body.kind, body.id, caller.uid);
    },
  }),
  // Phone book moderation, for users with the `admin` custom claim.
  consoleRoute({
    method: "GET",
    path: "/api/console/listings",
    response: ListingListSchema,
    summary: "Phone book listings awaiting moderation (admins)",
    credential: "admin",
    query: StatusQuery,
    async handle({ query }) {
      return { listings: (await listListings(query.status)).map(publicListing) };
    },
  }),
  consoleRoute({
    method: "POST",
    path: "/api/console/listings/:domain/:action",
    response: ListingSchema,
    summary: "Approve or reject a phone book listing (admins)",
    credential: "admin",
    params: ListingParams,
    query: ReasonQuery,
    async handle({ user, params, query }) {
      return moderateListing(params.action, params.domain, { by: user.uid, reason: query.reason ?? "" });
    },
  }),
  consoleRoute({
    method: "POST",
    path: "/api/console/session",
    response: SessionStartedSchema,
    summary: "Start a session cookie from a fresh sign-in",
    credential: "none",
    body: SessionSchema,
    async handle({ body, res }) {
      const session = await startSession(body.idToken);
      res.cookie(SESSION_COOKIE_NAME, session.cookie, {
        maxAge: session.maxAgeMs,
        httpOnly: true,
        secure: !getConfig().isEmulator,
        sameSite: "strict",
        path: "/",
      });
      return { ok: true as const, expiresInSeconds: session.maxAgeMs / 1000 };
    },
  }),
  consoleRoute({
    method: "POST",
    path: "/api/console/logout",
    response: DoneSchema,
    summary: "End the session everywhere",
    credential: "none",
    query: NoQuery,
    async handle({ req, res }) {
      // Whoever signs out ends every session of theirs; a missing or invalid credential just gets cleared.
      const user = await verifyUser({ cookie: req.headers.cookie, authorization: req.headers.authorization }).catch((error: unknown) => {
        if (error instanceof AppError) return undefined;
        throw error;
      });
      if (user) await endSession(user.uid);
      res.clearCookie(SESSION_COOKIE_NAME, { path: "/" });
      return { ok: true as const };
    },
  }),
);

// Code routes first: /codes/preview and /codes/import before /codes/:codeId would take them.
export const consoleRoutes = routeTable(...codeRoutes, ...endpoints, ...connectedAppsRoutes, ...appLinkRoutes);

/** Every console route by "METHOD /path" (after /api/console), with its request and answer types: the browser's client reads this. */
export type ConsoleApi = ApiOf<typeof consoleRoutes>;

export const consoleApp = createRestApp(
  (app) => {
    app.use((_req: Request, res: Response, next) => {
      // "private" also keeps Hosting from stripping Set-Cookie (it drops cookies on cacheable responses).
      res.set("Cache-Control", "private, no-store");
      next();
    });
    mountEndpoints(app, "console", consoleRoutes);
    app.use((req: Request) => {
      throw new AppError("NOT_FOUND", `No such console endpoint: ${req.method} ${req.path}`);
    });
  },
  { cors: "console" },
);
