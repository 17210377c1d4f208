// Console "Connected apps": the OAuth grants of the workspace (client, scopes, last use) and their
// revocation, which takes effect on the grant's next request, as for keys. Owners revoke any grant,
// members their own.
import { z } from "zod";
import { AppError } from "../core/errors";
import { consoleRoute, routeTable } from "./route";
import { GrantListSchema, GrantSchema } from "./schemas";
import { getGrant, listGrants, revokeGrant, type Grant } from "../store/oauthGrants";

export function publicGrant(grant: Grant) {
  const { grantId, clientId, clientName, scopes, uid, revokedReason } = grant;
  const [createdAt, lastUsedAt, revokedAt] = [grant.createdAt, grant.lastUsedAt, grant.revokedAt].map((d) => d?.toISOString() ?? null);
  return { grantId, clientId, clientName, scopes, uid, createdAt, lastUsedAt, revokedAt, revokedReason };
}

const GrantParams = z.object({ grantId: z.string().regex(/^grant_[0-9a-f]{24}$/, "Must be a grantId: grant_ and 24 hex digits") }).strict();

const revoke = <M extends "POST" | "DELETE", Path extends string>(method: M, path: Path) =>
  consoleRoute({
    method,
    path,
    summary: "Revoke a connected app's grant",
    credential: "member",
    params: GrantParams,
    response: GrantSchema,
    limit: "consoleWrites",
    async handle({ caller, params }) {
      const grant = await getGrant(params.grantId);
      if (!grant || grant.merchantId !== caller.merchantId) throw new AppError("NOT_FOUND", "No such connected app in this workspace");
      if (caller.role !== "owner" && grant.uid !== caller.uid) throw new AppError("FORBIDDEN", "Members can revoke only the apps they connected");
      return publicGrant((await revokeGrant(params.grantId, "revoked in the console"))!);
    },
  });

export const connectedAppsRoutes = routeTable(
  consoleRoute({
    method: "GET",
    path: "/api/console/connected-apps",
    summary: "The workspace's connected OAuth apps",
    response: GrantListSchema,
    credential: "member",
    async handle({ caller }) {
      return { apps: (await listGrants(caller.merchantId)).map(publicGrant) };
    },
  }),
  revoke("POST", "/api/console/connected-apps/:grantId/revoke"),
  revoke("DELETE", "/api/console/connected-apps/:grantId"),
);
