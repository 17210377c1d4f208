// The GS1-Conformant resolver (GS1-Conformant Resolver standard 1.2; checklist: docs/gs1-resolver.md):
// /<primary key AI>/<value>[/<qualifier AI>/<value>...] and /.well-known/gs1resolver, on the shared public
// host through Hosting rewrites (firebase.json), and on a merchant's own host through the load balancer
// path (redirect/customHost.ts; docs/gs1-on-brand-hosts.md). resolve() turns a request into an answer for
// one host (a ResolverScope); resolverApp.ts writes it.
import { logError } from "../core/log";
import { TAKEN_DOWN_CSP, takenDownPage } from "../abuse/warningPage";
import { readGs1Levels, type StoredGs1Item } from "../store/gs1Items";
import { Gs1SyntaxError, levelPathsOf, parseDigitalLinkPath, pathOf, SUPPORTED_PRIMARY_KEYS } from "./keys";
import { decompressDigitalLink, matchesGs1Grammar } from "./grammar";
import { GS1_VOC, linkTypeTermOf } from "./linkTypes";
import { chooseLink, linksetOf } from "./match";
import { sharedScope, type ResolverScope } from "./service";
import { WELL_KNOWN_PATH } from "./routes";

export { WELL_KNOWN_PATH };

export const LINKSET_MEDIA_TYPE = "application/linkset+json";
export const LINKSET_CONTEXT = "https://ref.gs1.org/standards/resolver/linkset-context";

export interface ResolverRequest {
  method: string;
  /** The path as sent (percent-encoded). */
  path: string;
  /** The raw query string, without "?". */
  query: string;
  headers: { accept?: string; acceptLanguage?: string };
}

export interface ResolverAnswer {
  status: number;
  headers: Record<string, string>;
  /** Omitted for HEAD by the writer. */
  body?: string;
  /** What was resolved, when it is a scan to count (gs1/scans.ts): the item answered and the link type sent to, or the linkset. */
  resolved?: Resolution;
  /** A root word that is no compressed URI: the host's own "page not found" (a merchant's host answers its own page). */
  siteNotFound?: true;
}

/** A resolution to count: a redirect by the chosen link's type, or a machine's fetch of the linkset. */
export type Resolution = { item: StoredGs1Item; linkType: string } | { item: StoredGs1Item; linkset: true };

/** On every answer: any origin may read it, including the Link and Location headers (§ CORS). */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "Link, Location, Content-Type",
};

const ALLOWED_METHODS = "GET, HEAD, OPTIONS";

/** What a caller can do next, by status: every error body of the service carries one (docs/errors.md). */
const NEXT_STEP: Record<number, string> = {
  400: "Write the URI as /<primary key AI>/<key>[/<qualifier AI>/<value>...], e.g. /01/<GTIN-14>/10/<lot>; /.well-known/gs1resolver describes this resolver.",
  404: "Ask for the linkset (?linkType=linkset) to see which link types this item has, or check the key.",
  405: "Use GET, HEAD or OPTIONS.",
  500: "Retry in a moment.",
};

function errorAnswer(status: number, code: string, message: string, extra: Record<string, string> = {}): ResolverAnswer {
  const reason = { 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 500: "Internal Server Error" }[status] ?? "Error";
  return {
    status,
    headers: { ...CORS_HEADERS, "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", ...extra },
    body: JSON.stringify({ error: reason, code, message, hint: NEXT_STEP[status] ?? NEXT_STEP[500], status }),
  };
}

interface QueryPair {
  key: string;
  value: string;
  raw: string;
}

/** The query's key=value pairs, as decoded values and as sent (passed on as sent). */
function queryPairs(query: string): QueryPair[] {
  if (!query) return [];
  return query
    .split("&")
    .filter((raw) => raw !== "")
    .map((raw) => {
      const eq = raw.indexOf("=");
      const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
      try {
        return eq < 0 ? { key: decode(raw), value: "", raw } : { key: decode(raw.slice(0, eq)), value: decode(raw.slice(eq + 1)), raw };
      } catch {
        throw new Gs1SyntaxError(`Malformed percent-encoding in the query "${raw.slice(0, 40)}"`);
      }
    });
}

/** The resolver description file (§ resolver description file; GS1's description-file schema), for the host answering. */
export function resolverDescription(scope: ResolverScope = sharedScope()): Record<string, unknown> {
  return {
    name: "svc GS1-Conformant resolver",
    resolverRoot: scope.origin,
    supportedPrimaryKeys: [...SUPPORTED_PRIMARY_KEYS],
    supportedLinkType: [{ namespace: "https://gs1.org/voc/", prefix: "gs1:" }, { namespace: GS1_VOC, prefix: "gs1ref:" }],
    linkTypeDefaultCanBeLinkset: false,
  };
}

function wantsLinksetByAccept(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept
    .split(",")
    .map((p) => p.trim().split(";")[0].trim().toLowerCase())
    .includes(LINKSET_MEDIA_TYPE);
}

/** Appends the request's key=value pairs (except the resolver's own linkType) to a target URL. */
function withQuery(href: string, pairs: QueryPair[]): string {
  const passed = pairs.filter((p) => p.key !== "linkType").map((p) => p.raw);
  if (!passed.length) return href;
  const hash = href.indexOf("#");
  const [base, fragment] = hash < 0 ? [href, ""] : [href.slice(0, hash), href.slice(hash)];
  return `${base}${base.includes("?") ? "&" : "?"}${passed.join("&")}${fragment}`;
}

/**
 * A root word that is not a compressed URI (`/no-such-page`) was never a GS1 Digital Link URI: it gets the
 * site's own 404 page (hosting/404.html), as it did before Hosting routed such paths here.
 */
function notFoundPage(): ResolverAnswer {
  return {
    siteNotFound: true,
    status: 404,
    headers: {
      ...CORS_HEADERS,
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "public, max-age=300",
      // firebase.json's policy for hosting/404.html.
      "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    },
    body:
      '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\n' +
      '<link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>Page not found</title><link rel="stylesheet" href="/style.css"></head>\n' +
      '<body><h1>Page not found</h1><p>Nothing lives at this address. Start from the <a href="/">home page</a>.</p></body></html>\n',
  };
}

/** A compressed URI's path: one segment of base64url characters at the root (GS1 Digital Link: Compression). */
const COMPRESSED_PATH = /^\/[A-Za-z0-9_-]+\/?$/;

/**
 * The request with a compressed URI decompressed (§ compressed URIs): its path and data attributes become
 * the request's, the request's own query pairs following; every answer then names the uncompressed URI in
 * `Link: <...>; rel="owl:sameAs"`. A root segment that is not a compressed URI gets the site's 404 page.
 */
export async function resolve(request: ResolverRequest, scope: ResolverScope = sharedScope()): Promise<ResolverAnswer> {
  if (request.path === WELL_KNOWN_PATH || request.path === `${WELL_KNOWN_PATH}/` || !COMPRESSED_PATH.test(request.path)) return resolveUncompressed(request, scope);
  const method = request.method.toUpperCase();
  if (method !== "GET" && method !== "HEAD") return resolveUncompressed(request, scope);
  const uncompressed = decompressDigitalLink(`${scope.origin}${request.path}`);
  if (!uncompressed) return notFoundPage();
  const url = new URL(uncompressed);
  const query = [url.search.slice(1), request.query].filter((q) => q !== "").join("&");
  const answer = await resolveUncompressed({ ...request, path: url.pathname, query }, scope);
  const sameAs = `<${url.origin}${url.pathname}${url.search}>; rel="owl:sameAs"`;
  return { ...answer, headers: { ...answer.headers, Link: answer.headers.Link ? `${sameAs}, ${answer.headers.Link}` : sameAs } };
}

async function resolveUncompressed(request: ResolverRequest, scope: ResolverScope): Promise<ResolverAnswer> {
  const method = request.method.toUpperCase();
  if (method === "OPTIONS") {
    return {
      status: 204,
      headers: {
        ...CORS_HEADERS,
        Allow: ALLOWED_METHODS,
        "Access-Control-Allow-Methods": ALLOWED_METHODS,
        "Access-Control-Allow-Headers": "Accept, Accept-Language, Content-Type",
        "Access-Control-Max-Age": "86400",
      },
    };
  }
  if (method !== "GET" && method !== "HEAD") {
    return errorAnswer(405, "METHOD_NOT_ALLOWED", `${method} is not served here: use GET, HEAD or OPTIONS`, { Allow: ALLOWED_METHODS });
  }

  const origin = scope.origin;
  if (request.path === WELL_KNOWN_PATH || request.path === `${WELL_KNOWN_PATH}/`) {
    return {
      status: 200,
      headers: { ...CORS_HEADERS, "Content-Type": "application/json; charset=utf-8", "Cache-Control": "public, max-age=300" },
      body: JSON.stringify(resolverDescription(scope)),
    };
  }

  let parsed: ReturnType<typeof parseDigitalLinkPath>;
  let pairs: QueryPair[];
  try {
    parsed = parseDigitalLinkPath(request.path);
    pairs = queryPairs(request.query);
  } catch (error) {
    if (error instanceof Gs1SyntaxError) return errorAnswer(400, "VALIDATION_FAILED", `Not a valid GS1 Digital Link URI: ${error.message}`);
    throw error;
  }
  const path = pathOf(parsed.key.ai, parsed.value, parsed.qualifiers);
  if (!matchesGs1Grammar(`${origin}${path}`)) {
    return errorAnswer(400, "VALIDATION_FAILED", `Not a valid GS1 Digital Link URI: ${path} does not match GS1's Digital Link grammar`);
  }

  const linksetUrl = `${origin}${path}?linkType=linkset`;
  const linksetLink = `<${linksetUrl}>; rel="linkset"; type="${LINKSET_MEDIA_TYPE}"`;
  const requestedType = pairs.find((p) => p.key === "linkType")?.value;
  const wantsLinkset = requestedType === "linkset" || requestedType === "all" || (!requestedType && wantsLinksetByAccept(request.headers.accept));

  let levels: StoredGs1Item[];
  try {
    // On a merchant's host, an item left there by a workspace that held the host before is not answered.
    levels = (await readGs1Levels(scope.host, levelPathsOf(parsed.key.ai, parsed.value, parsed.qualifiers))).filter(
      (i): i is StoredGs1Item => i !== undefined && (scope.merchantId === undefined || i.merchantId === scope.merchantId),
    );
  } catch (error) {
    logError("resolver.read_failed", "The resolver could not read the items of a GS1 key", error, { path });
    return errorAnswer(500, "INTERNAL", "The resolver could not read its links; retry in a moment");
  }
  const vary = { Vary: "Accept, Accept-Language" };
  if (!levels.length) {
    return errorAnswer(404, "NOT_FOUND", `This resolver has no links for ${parsed.key.title} ${parsed.value}${parsed.qualifiers.length ? " or any of its qualifiers" : ""}`, vary);
  }

  // An operator's takedown of the item or of any level above it (a GTIN taken down takes its lots and
  // serials with it): the warning page, no link and no linkset, and nothing counted.
  if (levels.some((item) => item.takenDown)) {
    return {
      status: 410,
      headers: { ...CORS_HEADERS, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": TAKEN_DOWN_CSP, "Referrer-Policy": "no-referrer" },
      body: takenDownPage(),
    };
  }

  if (wantsLinkset) {
    const body = linksetOf(levels, (item) => `${origin}${item.path}`);
    return {
      status: 200,
      headers: {
        ...CORS_HEADERS,
        ...vary,
        "Content-Type": LINKSET_MEDIA_TYPE,
        "Cache-Control": "no-store",
        Link: `<${LINKSET_CONTEXT}>; rel="http://www.w3.org/ns/json-ld#context"; type="application/ld+json"`,
      },
      body: JSON.stringify(body),
      resolved: { item: levels[0], linkset: true },
    };
  }

  let term: string | undefined;
  if (requestedType !== undefined) {
    term = linkTypeTermOf(requestedType);
    if (!term) {
      return errorAnswer(404, "NOT_FOUND", `No link of type "${requestedType.slice(0, 80)}" for ${path}: not a link type of the GS1 Web Vocabulary`, { ...vary, Link: linksetLink });
    }
  }
  const context = pairs.find((p) => p.key === "context")?.value;
  const outcome = chooseLink(levels, { linkType: term, acceptLanguage: request.headers.acceptLanguage, accept: request.headers.accept, context });
  if (outcome.kind === "noSuchLinkType") {
    return errorAnswer(404, "NOT_FOUND", `No link of type gs1:${term} for ${path}`, { ...vary, Link: linksetLink });
  }
  if (outcome.kind === "noLinks") {
    return errorAnswer(404, "NOT_FOUND", `No default link for ${path}`, { ...vary, Link: linksetLink });
  }
  return {
    status: 307,
    headers: {
      ...CORS_HEADERS,
      ...vary,
      Location: withQuery(outcome.link.href, pairs),
      Link: linksetLink,
      "Cache-Control": "no-store",
      "Referrer-Policy": "no-referrer",
    },
    resolved: { item: outcome.item, linkType: outcome.link.linkType },
  };
}
