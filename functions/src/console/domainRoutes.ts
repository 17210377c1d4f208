// Console page "Domains": a workspace's branded domains through the same domain functions and schemas as
// REST /api/domains and the svc.domain.* tools (domains/service.ts). Members read; the functions refuse
// changes by anyone but the owner. The check asks the configured DNS servers, or on the local stack the
// loopback server a request names in X-Test-Dns, as REST's does (docs/domains.md, "The console page").
import { z } from "zod";
import { getConfig } from "../core/config";
import { requestDnsServers } from "../core/testClock";
import {
  addDomain,
  DefaultDomainSchema,
  DefaultDomainSetSchema,
  domainGet,
  DomainParamsSchema,
  domainList,
  DomainDeletedSchema,
  DomainListSchema,
  NewDomainSchema,
  PublicDomainSchema,
  removeDomain,
  PageColoursSchema,
  RootUrlSchema,
  setDefaultDomain,
  setWorkspacePageColours,
  setWorkspaceRootUrl,
  verifyDomain,
} from "../domains/service";
import { consoleRoute, routeTable } from "./route";

const NoBody = z.object({}).strict();
const member = { credential: "member" } as const;

export const domainConsoleRoutes = routeTable(
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/domains",
    summary: "The workspace's branded domains, their records and states",
    response: DomainListSchema,
    handle: ({ caller }) => domainList(caller),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/domains",
    summary: "Add a branded domain (owner): answers the DNS records to create",
    limit: "consoleWrites",
    body: NewDomainSchema,
    response: PublicDomainSchema,
    async handle({ caller, body, res }) {
      const added = await addDomain(caller, body);
      res.status(201);
      return added;
    },
  }),
  consoleRoute({
    ...member,
    method: "GET",
    path: "/api/console/domains/:domainId",
    summary: "One branded domain",
    params: DomainParamsSchema,
    response: PublicDomainSchema,
    handle: ({ caller, params }) => domainGet(caller, params.domainId),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/domains/:domainId/verify",
    summary: "Check a branded domain's DNS records now (owner)",
    limit: "consoleWrites",
    params: DomainParamsSchema,
    body: NoBody,
    response: PublicDomainSchema,
    handle: ({ req, caller, params }) => verifyDomain(caller, params.domainId, { dnsServers: requestDnsServers(req.headers, getConfig().honoursTestClock) }),
  }),
  consoleRoute({
    ...member,
    method: "DELETE",
    path: "/api/console/domains/:domainId",
    summary: "Remove a branded domain (owner)",
    limit: "consoleWrites",
    params: DomainParamsSchema,
    response: DomainDeletedSchema,
    handle: ({ caller, params }) => removeDomain(caller, params.domainId),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/domains/default",
    summary: "Set the domain new dynamic codes go on, or null for the service's host (owner)",
    limit: "consoleWrites",
    body: DefaultDomainSchema,
    response: DefaultDomainSetSchema,
    handle: ({ caller, body }) => setDefaultDomain(caller, body.domainId),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/domains/root-url",
    summary: "Set where / on the workspace's hosts redirects, or null (owner)",
    limit: "consoleWrites",
    body: RootUrlSchema,
    response: RootUrlSchema,
    handle: ({ caller, body }) => setWorkspaceRootUrl(caller, body.rootUrl),
  }),
  consoleRoute({
    ...member,
    method: "POST",
    path: "/api/console/domains/page-colours",
    summary: "Set the colours of the pages the workspace's hosts answer, or null (owner)",
    limit: "consoleWrites",
    body: PageColoursSchema,
    response: PageColoursSchema,
    handle: ({ caller, body }) => setWorkspacePageColours(caller, body.pageColours),
  }),
);
