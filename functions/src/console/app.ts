// Console HTTP API for signed-in users (ID token or session cookie; never an API key): workspace,
// API keys, session cookies. Mounted at /api/console on the app host.
import type { Request, Response } from "express";
import { AppError } from "../core/errors";
import { getConfig } from "../core/config";
import { auth } from "../core/firebase";
import { REST_MAX_BODY_BYTES } from "../core/limits";
import { parseOrThrow } from "../core/validation";
import { captureRawBody, createRestApp, isJsonContentType, parseJsonBody } from "../http/rest";
import { callerForUser, SESSION_COOKIE_NAME, verifyUser, type Caller } from "../auth/caller";
import { listApiKeys, mintApiKey, revokeApiKey, type ApiKeyRecord } from "../store/apiKeys";
import { ensureWorkspaceForOwner, getWorkspace } from "../store/workspaces";
import { ClaimSchema, CodeChangeSchema, DaysQuerySchema, DraftKindSchema, PublishSchema, ListingStatusSchema, CreateWorkspaceSchema, MintKeySchema, SessionSchema } from "./schemas";
import { claimSandboxCode } from "../sandbox/service";
import { approveListing, publicListing, rejectListing } from "../listings/service";
import { listListings } from "../store/listings";
import { listCodes } from "../store/codes";
import { listDrafts, publishRecord } from "../store/drafts";
import { publicCode } from "../codes/model";
import { updateCode } from "../codes/service";
import { codeAnalytics, scanSummary } from "../scans/analytics";
import { registerCodeRoutes } from "./codeRoutes";

const SESSION_MAX_AGE_MS = 5 * 24 * 60 * 60 * 1000;

function jsonBody(req: Request): unknown {
  if (!isJsonContentType(req)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send Content-Type: application/json");
  return parseJsonBody(req, REST_MAX_BODY_BYTES);
}

const credentials = (req: Request) => ({ authorization: req.headers.authorization, cookie: req.headers.cookie });

async function consoleCaller(req: Request): Promise<Caller> {
  return callerForUser(await verifyUser(credentials(req)));
}

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

export const consoleApp = createRestApp((app) => {
  app.use(captureRawBody(REST_MAX_BODY_BYTES));
  app.use((_req, res, next) => {
    // "private" also keeps Hosting from stripping Set-Cookie (it drops cookies on cacheable responses).
    res.set("Cache-Control", "private, no-store");
    next();
  });
  registerCodeRoutes(app); // before /codes/:codeId, which would otherwise take /codes/preview

  app.post("/api/console/workspace", async (req: Request, res: Response) => {
    const user = await verifyUser(credentials(req));
    const input = parseOrThrow(CreateWorkspaceSchema, jsonBody(req), "workspace request");
    const name = input.name ?? `${user.email?.split("@")[0] ?? "My"} workspace`;
    const { workspace, created } = await ensureWorkspaceForOwner(user.uid, name);
    res.status(created ? 201 : 200).json({ created, workspace: { ...workspace, createdAt: workspace.createdAt.toISOString() } });
  });

  app.get("/api/console/me", async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    const workspace = await getWorkspace(caller.merchantId);
    res.json({
      uid: caller.uid,
      authMethod: caller.authMethod,
      role: caller.role,
      isAdmin: caller.isAdmin,
      scopes: caller.scopes,
      workspace: workspace && { ...workspace, createdAt: workspace.createdAt.toISOString() },
    });
  });

  app.get("/api/console/keys", async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    res.json({ keys: (await listApiKeys(caller.merchantId)).map(publicKey) });
  });

  app.post("/api/console/keys", async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    const input = parseOrThrow(MintKeySchema, jsonBody(req), "key request");
    const { key, record } = await mintApiKey({
      merchantId: caller.merchantId,
      uid: caller.uid,
      name: input.name ?? "API key",
      scopes: input.scopes,
    });
    res.status(201).json({ key, ...publicKey(record), notice: "This is the only time the key is shown. Store it now." });
  });

  const revoke = async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    const id = String(req.params.id ?? "");
    if (!/^key_[0-9a-f]{16}$/.test(id)) throw new AppError("NOT_FOUND", "No such API key in this workspace");
    const record = await revokeApiKey(caller.merchantId, id, caller.role === "owner" ? undefined : caller.uid);
    res.json(publicKey(record));
  };
  app.post("/api/console/keys/:id/revoke", revoke);
  app.delete("/api/console/keys/:id", revoke);

  app.post("/api/console/claims", async (req: Request, res: Response) => {
    const user = await verifyUser(credentials(req));
    const { claimToken } = parseOrThrow(ClaimSchema, jsonBody(req), "claim request");
    res.status(201).json(await claimSandboxCode(user, claimToken));
  });

  // Workspace data for the console pages, and publishing (draft to published), which no tool can do.
  app.get("/api/console/codes", async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    res.json({ codes: (await listCodes(caller.merchantId, 100)).map(publicCode) });
  });
  app.post("/api/console/codes/:codeId", async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    const changes = parseOrThrow(CodeChangeSchema, jsonBody(req), "code change");
    res.json(publicCode(await updateCode(caller.merchantId, { codeId: String(req.params.codeId) }, changes)));
  });
  app.get("/api/console/codes/:codeId/analytics", async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    const { days } = parseOrThrow(DaysQuerySchema, req.query, "query");
    res.json(await codeAnalytics(caller.merchantId, { codeId: String(req.params.codeId) }, days));
  });
  app.get("/api/console/analytics", async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    const { days } = parseOrThrow(DaysQuerySchema, req.query, "query");
    res.json(await scanSummary(caller.merchantId, days));
  });
  app.get("/api/console/drafts/:kind", async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    const kind = parseOrThrow(DraftKindSchema, req.params.kind, "kind");
    res.json({ items: (await listDrafts(caller.merchantId, kind, 100)).map((d) => JSON.parse(JSON.stringify(d))) });
  });
  app.post("/api/console/publish", async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    const { kind, id } = parseOrThrow(PublishSchema, jsonBody(req), "publish request");
    res.json(await publishRecord(caller.merchantId, kind, id, caller.uid));
  });

  // Phone book moderation, for users with the `admin` custom claim.
  const requireAdmin = async (req: Request) => {
    const user = await verifyUser(credentials(req));
    if (!user.isAdmin) throw new AppError("FORBIDDEN", "Only administrators can moderate listings");
    return user;
  };
  app.get("/api/console/listings", async (req: Request, res: Response) => {
    await requireAdmin(req);
    const status = parseOrThrow(ListingStatusSchema, req.query.status ?? "pending", "status");
    res.json({ listings: (await listListings(status)).map(publicListing) });
  });
  app.post("/api/console/listings/:domain/:action", async (req: Request, res: Response) => {
    await requireAdmin(req);
    const { domain, action } = req.params as { domain: string; action: string };
    if (action === "approve") res.json(await approveListing(domain));
    else if (action === "reject") res.json(await rejectListing(domain, typeof req.query.reason === "string" ? req.query.reason : ""));
    else throw new AppError("NOT_FOUND", `Unknown listing action ${action}`);
  });

  app.post("/api/console/session", async (req: Request, res: Response) => {
    const { idToken } = parseOrThrow(SessionSchema, jsonBody(req), "session request");
    let cookie: string;
    try {
      await auth().verifyIdToken(idToken, true);
      cookie = await auth().createSessionCookie(idToken, { expiresIn: SESSION_MAX_AGE_MS });
    } catch {
      throw new AppError("INVALID_TOKEN", "ID token is invalid or expired");
    }
    res.cookie(SESSION_COOKIE_NAME, cookie, {
      maxAge: SESSION_MAX_AGE_MS,
      httpOnly: true,
      secure: !getConfig().isEmulator,
      sameSite: "strict",
      path: "/",
    });
    res.json({ ok: true, expiresInSeconds: SESSION_MAX_AGE_MS / 1000 });
  });

  app.post("/api/console/logout", (_req: Request, res: Response) => {
    res.clearCookie(SESSION_COOKIE_NAME, { path: "/" }).json({ ok: true });
  });

  app.use((req: Request) => {
    throw new AppError("NOT_FOUND", `No such console endpoint: ${req.method} ${req.path}`);
  });
});
