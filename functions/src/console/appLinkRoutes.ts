// Console: a branded domain's app association files (docs/domains.md, "App links"), through the same
// domain functions as REST (bulk/domainRoutes.ts): any member reads, the owner sets or removes them.
import { z } from "zod";
import { AppLinksInputSchema, AppLinksSchema, getAppLinks, putAppLinks } from "../domains/appLinks";
import { domainIdSchema, requireOwner } from "../domains/service";
import { consoleRoute, routeTable } from "./route";

const member = { credential: "member" } as const;
const DomainParams = z.object({ domainId: domainIdSchema }).strict();

export const appLinkRoutes = routeTable(
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/domains/:domainId/app-links",
    summary: "A branded domain's apple-app-site-association and assetlinks.json",
    params: DomainParams,
    response: AppLinksSchema,
    handle: ({ caller, params }) => getAppLinks(caller, params.domainId),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/domains/:domainId/app-links",
    summary: "Set or remove a branded domain's app association files (the owner)",
    limit: "consoleWrites",
    params: DomainParams,
    body: AppLinksInputSchema,
    response: AppLinksSchema,
    handle: ({ caller, params, body }) => putAppLinks(caller, params.domainId, body, requireOwner),
  }),
);
