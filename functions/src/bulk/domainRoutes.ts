// REST: a workspace's branded domains (served by the bulk function, under /api/domains), through the same
// domain functions as the svc.domain.* tools (domains/service.ts). Reads need domains:read, changes
// domains:write and the workspace's owner.
import { z } from "zod";
import { endpoint } from "../http/endpoint";
import { getConfig } from "../core/config";
import { requestDnsServers } from "../core/testClock";
import {
  addDomain,
  domainGet,
  DomainParamsSchema,
  domainList,
  DomainDeletedSchema,
  DomainListSchema,
  DefaultDomainSchema,
  DefaultDomainSetSchema,
  MAX_DOMAINS,
  NewDomainSchema,
  PublicDomainSchema,
  removeDomain,
  setDefaultDomain,
  requireOwner,
  PageColoursSchema,
  RootUrlSchema,
  setWorkspacePageColours,
  setWorkspaceRootUrl,
  verifyDomain,
} from "../domains/service";
import { AppLinksInputSchema, AppLinksSchema, getAppLinks, putAppLinks } from "../domains/appLinks";

const NoBody = z.object({}).strict();
const READ = { credential: "caller", scope: "domains:read", limit: "bulk" } as const;
const WRITE = { credential: "caller", scope: "domains:write", limit: "bulk" } as const;

const EXAMPLE_ID = "dom_3f9a2c7d1e5b4a60c2d1";
const EXAMPLE_TOKEN = "5c0f9e1d2b3a4c5d6e7f8091a2b3c4d5";
const EXAMPLE_DOMAIN = {
  domainId: EXAMPLE_ID,
  hostname: "scan.example.com",
  hostnameUnicode: "scan.example.com",
  apex: false,
  state: "pending" as const,
  reason: null,
  problem: `Waiting for the TXT record _svc-verify.scan.example.com with the value svc-verify=${EXAMPLE_TOKEN}: create it at your DNS host; changes can take up to an hour to be seen.`,
  records: [
    { type: "TXT" as const, name: "_svc-verify.scan.example.com", value: `svc-verify=${EXAMPLE_TOKEN}`, purpose: "Proves the domain is yours; keep it while the domain is in use" },
    { type: "CNAME" as const, name: "scan.example.com", value: "domains.svc.example", purpose: "Sends scans to the service" },
  ],
  recordsNote: null,
  notice: null,
  createdAt: "2026-11-29T09:00:00.000Z",
  checkedAt: null,
  activatedAt: null,
  invalidSince: null,
  detachedAt: null,
};

const EXAMPLE_APP_LINKS = {
  appleAppSiteAssociation: { applinks: { details: [{ appIDs: ["ABCDE12345.com.example.shop"], components: [{ "/": "/qr/*" }] }] } },
  assetLinks: [{ relation: ["delegate_permission/common.handle_all_urls"], target: { namespace: "android_app" as const, package_name: "com.example.shop", sha256_cert_fingerprints: [Array(32).fill("AB").join(":")] } }],
};

const STATES =
  "States: `pending` (the TXT record is not seen yet), `verifying` (ownership proven, the serving record not seen yet), `cert_pending` (records right, certificate being issued), `active`, " +
  "`invalid` (`reason` and `problem` say why: txt_missing, txt_stale, serving_missing, points_elsewhere, proxied, caa_forbids, cert_timeout, cert_failed, host_taken) and `detached` (30 days after it stopped verifying).";

export const domainRoutes = [
  endpoint({
    method: "POST",
    path: "/api/domains",
    summary: "Add a branded domain and get the DNS records to create",
    ...WRITE,
    body: NewDomainSchema,
    response: PublicDomainSchema,
    doc: {
      operationId: "addDomain",
      success: [201],
      description:
        "Adds a host (Unicode or punycode; stored as lower-case punycode) to the workspace and answers the records to create: a TXT record `_svc-verify.<hostname>` with a fresh token (a new one on every add), and a CNAME to the service for a sub-domain, or for an apex A/AAAA records or an ALIAS (an apex cannot be a CNAME). " +
        `Refused with 400 and nothing written: public suffixes and bare top-level domains, the service's own hosts, IP addresses, invalid names, blocklisted hosts. 409: the host is already this workspace's, in use by another workspace, or the workspace holds ${String(MAX_DOMAINS)} domains. Owners only. ` +
        STATES,
      errors: ["CONFLICT", "FORBIDDEN"],
      example: { body: { hostname: "scan.example.com" }, response: EXAMPLE_DOMAIN },
    },
    async handle({ res, caller, body }) {
      const added = await addDomain(caller, body);
      res.status(201);
      return added;
    },
  }),
  endpoint({
    method: "GET",
    path: "/api/domains",
    summary: "The workspace's branded domains",
    ...READ,
    response: DomainListSchema,
    doc: {
      operationId: "listDomains",
      description: `Every domain of the workspace (at most ${String(MAX_DOMAINS)}, so no pages), oldest first, with its records and state.`,
      example: { response: { count: 1, max: MAX_DOMAINS, defaultDomainId: null, rootUrl: "https://www.example.com/", pageColours: null, domains: [EXAMPLE_DOMAIN] } },
    },
    handle: ({ caller }) => domainList(caller),
  }),
  endpoint({
    method: "GET",
    path: "/api/domains/:domainId",
    summary: "One branded domain",
    ...READ,
    params: DomainParamsSchema,
    response: PublicDomainSchema,
    doc: {
      operationId: "getDomain",
      description: `The domain, its records to create and its state. ${STATES}`,
      errors: ["NOT_FOUND"],
      example: { params: { domainId: EXAMPLE_ID }, response: EXAMPLE_DOMAIN },
    },
    handle: ({ caller, params }) => domainGet(caller, params.domainId),
  }),
  endpoint({
    method: "POST",
    path: "/api/domains/:domainId/verify",
    summary: "Check a branded domain's DNS records now",
    ...WRITE,
    params: DomainParamsSchema,
    body: NoBody,
    response: PublicDomainSchema,
    doc: {
      operationId: "verifyDomain",
      description:
        "Looks the domain's records up now (the service also checks every domain hourly) and answers its new state. " +
        "When the DNS servers do not answer, the state stays as it was and `problem` says so. Owners only.",
      errors: ["NOT_FOUND", "FORBIDDEN"],
      example: { params: { domainId: EXAMPLE_ID }, body: {} },
    },
    handle: ({ req, caller, params }) => verifyDomain(caller, params.domainId, { dnsServers: requestDnsServers(req.headers, getConfig().honoursTestClock) }),
  }),
  endpoint({
    method: "GET",
    path: "/api/domains/:domainId/app-links",
    summary: "A branded domain's app association files",
    ...READ,
    params: DomainParamsSchema,
    response: AppLinksSchema,
    doc: {
      operationId: "getDomainAppLinks",
      description:
        "The apple-app-site-association and assetlinks.json files served on the domain's host at /.well-known/ (200 application/json, no redirect), or null for a file not supplied.",
      errors: ["NOT_FOUND"],
      example: { params: { domainId: EXAMPLE_ID }, response: { domainId: EXAMPLE_ID, hostname: "scan.example.com", ...EXAMPLE_APP_LINKS, updatedAt: "2026-11-29T09:00:00.000Z" } },
    },
    handle: ({ caller, params }) => getAppLinks(caller, params.domainId),
  }),
  endpoint({
    method: "POST",
    path: "/api/domains/:domainId/app-links",
    summary: "Set or remove a branded domain's app association files",
    ...WRITE,
    params: DomainParamsSchema,
    body: AppLinksInputSchema,
    response: AppLinksSchema,
    doc: {
      operationId: "setDomainAppLinks",
      description:
        "Sets the files given: `appleAppSiteAssociation` (Apple's apple-app-site-association: applinks, webcredentials, appclips, activitycontinuation) and `assetLinks` (Google's Digital Asset Links statement list), each checked against its documented shape and at most 64 KiB; null removes a file, a file not given is kept. " +
        "A file that does not match its shape is refused with 400 and nothing written. Owners only.",
      errors: ["NOT_FOUND", "FORBIDDEN"],
      example: { params: { domainId: EXAMPLE_ID }, body: EXAMPLE_APP_LINKS, response: { domainId: EXAMPLE_ID, hostname: "scan.example.com", ...EXAMPLE_APP_LINKS, updatedAt: "2026-11-29T09:00:00.000Z" } },
    },
    handle: ({ caller, params, body }) => putAppLinks(caller, params.domainId, body, requireOwner),
  }),
  endpoint({
    method: "DELETE",
    path: "/api/domains/:domainId",
    summary: "Remove a branded domain",
    ...WRITE,
    params: DomainParamsSchema,
    response: DomainDeletedSchema,
    doc: {
      operationId: "deleteDomain",
      description: "Removes the domain and frees its host for any workspace. Adding it again gives a new token. Owners only.",
      errors: ["NOT_FOUND", "FORBIDDEN"],
      example: { params: { domainId: EXAMPLE_ID }, response: { deleted: true, domainId: EXAMPLE_ID } },
    },
    handle: ({ caller, params }) => removeDomain(caller, params.domainId),
  }),
  endpoint({
    method: "POST",
    path: "/api/domains/default",
    summary: "Set the domain new dynamic codes go on",
    ...WRITE,
    body: DefaultDomainSchema,
    response: DefaultDomainSetSchema,
    doc: {
      operationId: "setDefaultDomain",
      description:
        "New dynamic codes that name no domain (`domainId` left out) go on this one while it is active; null: the service's own host. " +
        "The domain must be the workspace's (else 400) and active (else 409). Codes already made keep their host. Owners only.",
      errors: ["VALIDATION_FAILED", "CONFLICT", "FORBIDDEN"],
      // null (the service's own host) is a request a reader can send as is: no domain of theirs is needed.
      example: { body: { domainId: null }, response: { defaultDomainId: null } },
    },
    handle: ({ caller, body }) => setDefaultDomain(caller, body.domainId),
  }),
  endpoint({
    method: "POST",
    path: "/api/domains/root-url",
    summary: "Set where / on the workspace's branded hosts redirects",
    ...WRITE,
    body: RootUrlSchema,
    response: RootUrlSchema,
    doc: {
      operationId: "setRootUrl",
      description:
        "A request for `/` on any of the workspace's served hosts answers 302 to this URL (http or https, checked against the phishing and malware lists as a code's destination is); null removes it, and `/` answers the neutral 404 page. " +
        "`GET /api/domains` answers it as `rootUrl`. Owners only.",
      errors: ["VALIDATION_FAILED", "DESTINATION_BLOCKED", "FORBIDDEN"],
      example: { body: { rootUrl: "https://www.example.com/" }, response: { rootUrl: "https://www.example.com/" } },
    },
    handle: ({ caller, body }) => setWorkspaceRootUrl(caller, body.rootUrl),
  }),
  endpoint({
    method: "POST",
    path: "/api/domains/page-colours",
    summary: "Set the colours of the pages the workspace's branded hosts answer",
    ...WRITE,
    body: PageColoursSchema,
    response: PageColoursSchema,
    doc: {
      operationId: "setPageColours",
      description:
        "The pages a workspace's served hosts answer when nothing is at an address (an unknown code, a path that is nothing, `/` without a rootUrl) show the workspace's name above their heading, in these colours: text in `foreground` on `background`, each #RRGGBB, refused (400) unless they meet the WCAG contrast floor for text (4.5:1). null removes them: the plain page, still with the name. " +
        "`GET /api/domains` answers them as `pageColours`. Owners only.",
      errors: ["VALIDATION_FAILED", "FORBIDDEN"],
      example: { body: { pageColours: { foreground: "#1F2937", background: "#FEF3C7" } }, response: { pageColours: { foreground: "#1F2937", background: "#FEF3C7" } } },
    },
    handle: ({ caller, body }) => setWorkspacePageColours(caller, body.pageColours),
  }),
];
