// Console "Connected apps": the OAuth grants of the workspace (client, scopes, last use) and their
// revocation, which takes effect on the grant's next request, as for keys. Owners revoke any grant,
// members their own.
import type { Express, Request, Response } from "express";
import { AppError } from "../core/errors";
import type { Caller } from "../auth/caller";
import { getGrant, listGrants, revokeGrant, type Grant } from "../store/oauthGrants";

export function publicGrant(grant: Grant) {
  const { grantId, clientId, clientName, scopes, uid, revokedReason } = grant;
  const [createdAt, lastUsedAt, revokedAt] = [grant.createdAt, grant.lastUsedAt, grant.revokedAt].map((d) => d?.toISOString() ?? null);
  return { grantId, clientId, clientName, scopes, uid, createdAt, lastUsedAt, revokedAt, revokedReason };
}

export function connectedAppsRoutes(app: Express, consoleCaller: (req: Request) => Promise<Caller>): void {
  app.get("/api/console/connected-apps", async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    res.json({ apps: (await listGrants(caller.merchantId)).map(publicGrant) });
  });

  const revoke = async (req: Request, res: Response) => {
    const caller = await consoleCaller(req);
    const id = String(req.params.grantId ?? "");
    const grant = /^grant_[0-9a-f]{24}$/.test(id) ? await getGrant(id) : undefined;
    if (!grant || grant.merchantId !== caller.merchantId) throw new AppError("NOT_FOUND", "No such connected app in this workspace");
    if (caller.role !== "owner" && grant.uid !== caller.uid) throw new AppError("FORBIDDEN", "Members can revoke only the apps they connected");
    res.json(publicGrant((await revokeGrant(id, "revoked in the console"))!));
  };
  app.post("/api/console/connected-apps/:grantId/revoke", revoke);
  app.delete("/api/console/connected-apps/:grantId", revoke);
}
