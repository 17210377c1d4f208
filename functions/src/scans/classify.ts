// Which requests are people and which are machines, and where a scan happened. Pure functions over
// request headers. Machines are redirected like anyone, but counted apart under a reason, never as scans.
import { isbot, isbotMatch } from "isbot";

export type Headers = Record<string, string | string[] | undefined>;

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Why a request is not a person's scan:
 *  - head-request: a HEAD probe (link checkers, some unfurlers);
 *  - prefetch: the browser fetches ahead of a click (Purpose / Sec-Purpose headers);
 *  - no-user-agent: every browser and camera app sends one;
 *  - preview: a chat or social app fetching the link to draw its preview card;
 *  - library: an HTTP client library or command-line tool (curl, python-requests, Go's client, ...);
 *  - crawler: any other bot, crawler, monitor or headless browser (isbot's list, maintained upstream).
 */
type BotReason = "head-request" | "prefetch" | "no-user-agent" | "preview" | "library" | "crawler";

/** Link-preview fetchers of chat and social apps (iMessage presents itself as facebookexternalhit + Twitterbot). */
const PREVIEW_AGENTS =
  /facebookexternalhit|facebot|facebookcatalog|meta-externalagent|twitterbot|slackbot|slack-imgproxy|whatsapp|telegrambot|discordbot|skypeuripreview|linkedinbot|redditbot|pinterestbot|embedly|iframely|vkshare|kakaotalk-scrap|mastodon|bluesky|cardyb|google-pagerenderer|microsoftpreview|yahoo ?link ?preview|preview/i;

/** HTTP client libraries and command-line tools: a person scanning a code never presents as one of these. */
const LIBRARY_AGENTS =
  /^(curl|wget|python|aiohttp|httpx|go-http-client|okhttp|axios|node-fetch|node|undici|got|java|apache-httpclient|jakarta|postmanruntime|insomnia|httpie|libwww-perl|lwp|ruby|faraday|guzzle|dart|rest-client|reqwest|powershell|winhttp|cfnetwork|scrapy)\b/i;

/** Headless browsers, auditing tools and monitors that isbot may not name. */
const EXTRA_MACHINES = /headlesschrome|lighthouse|prerender|uptimerobot|pingdom|statuscake|phantomjs|selenium|puppeteer|playwright/i;

export function botReason(method: string, headers: Headers): BotReason | null {
  if (method === "HEAD") return "head-request";
  const purpose = `${header(headers, "purpose") ?? ""} ${header(headers, "sec-purpose") ?? ""} ${header(headers, "x-purpose") ?? ""}`;
  if (/prefetch|preview|prerender/i.test(purpose)) return "prefetch";
  const ua = (header(headers, "user-agent") ?? "").trim();
  if (!ua) return "no-user-agent";
  if (PREVIEW_AGENTS.test(ua)) return "preview";
  if (LIBRARY_AGENTS.test(ua)) return "library";
  if (isbot(ua) || EXTRA_MACHINES.test(ua)) return LIBRARY_AGENTS.test(isbotMatch(ua) ?? "") ? "library" : "crawler";
  return null;
}

// The record's shape lives with the store (the layer below); scans/ fills it.
export type { ScanPlace } from "../store/scans";
import type { ScanPlace } from "../store/scans";

export const UNKNOWN = "unknown";

function clean(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let v: string;
  try {
    v = decodeURIComponent(value.replace(/\+/g, " ")).trim();
  } catch {
    return undefined; // malformed percent-encoding: no usable value
  }
  if (!v || v === "?" || v.toLowerCase() === "zz" || v.toLowerCase() === "unknown") return undefined;
  return v.slice(0, 80);
}

function countryCode(value: string | undefined): string | undefined {
  const v = clean(value)?.toUpperCase();
  return v && /^[A-Z]{2}$/.test(v) && v !== "XX" && v !== "T1" ? v : undefined;
}

/**
 * Country, region and city from geo headers that a proxy in front may set, first match wins: App Engine's,
 * a Google load balancer's custom headers (`X-Client-Geo-Country: {client_region}`,
 * `X-Client-Geo-City: {client_city}`, `X-Client-Geo-Region: {client_region_subdivision}`), then Cloudflare's.
 * Cloud Functions 2nd gen gets none of them from Google, and a client can send any of them, so they are read
 * only where the operator declares them trusted (TRUST_GEO_HEADERS). Undefined when none is present.
 */
export function placeFromGeoHeaders(headers: Headers): ScanPlace | undefined {
  const sets: Array<[string, string, string]> = [
    ["x-appengine-country", "x-appengine-city", "x-appengine-region"],
    ["x-client-geo-country", "x-client-geo-city", "x-client-geo-region"],
    ["cf-ipcountry", "cf-ipcity", "cf-region-code"],
  ];
  for (const [countryHeader, cityHeader, regionHeader] of sets) {
    const city = clean(header(headers, cityHeader));
    const state = clean(header(headers, regionHeader));
    const country = countryCode(header(headers, countryHeader));
    if (city || state || country) return { country: country ?? UNKNOWN, city: city ?? UNKNOWN, state: state ?? UNKNOWN };
  }
  return undefined;
}

/** UTC day key, YYYY-MM-DD. */
export function dayKey(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The `days` UTC day keys ending today, oldest first. */
export function windowDays(days: number, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => dayKey(new Date(today - (days - 1 - i) * 86_400_000)));
}
