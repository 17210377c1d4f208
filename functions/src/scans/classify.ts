// Which requests count as scans, and where a scan happened. Pure functions over request headers.

export type Headers = Record<string, string | string[] | undefined>;

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** Crawlers, link-preview fetchers and monitoring agents: redirected, never counted. */
const BOT_PATTERN =
  /bot\b|bot\/|crawler|spider|crawling|facebookexternalhit|facebookcatalog|meta-externalagent|slack(bot|-imgproxy)|twitterbot|linkedinbot|whatsapp|telegrambot|discordbot|skypeuripreview|embedly|pinterest|redditbot|applebot|googlebot|bingbot|yandex|baiduspider|duckduckbot|ia_archiver|headlesschrome|lighthouse|preview|prerender|uptimerobot|pingdom|statuscake/i;

export type NotCountedReason = "head-request" | "bot" | "prefetch";

export function notCountedReason(method: string, headers: Headers): NotCountedReason | null {
  if (method === "HEAD") return "head-request";
  const purpose = `${header(headers, "purpose") ?? ""} ${header(headers, "sec-purpose") ?? ""} ${header(headers, "x-purpose") ?? ""}`;
  if (/prefetch|preview/i.test(purpose)) return "prefetch";
  const ua = header(headers, "user-agent") ?? "";
  if (BOT_PATTERN.test(ua)) return "bot";
  return null;
}

export interface ScanPlace {
  city: string;
  state: string;
}

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

/**
 * City and state (region) from geo headers that a proxy in front may set, first match wins: App Engine's,
 * a Google load balancer's custom headers (`X-Client-Geo-City: {client_city}`,
 * `X-Client-Geo-Region: {client_region_subdivision}`), then Cloudflare's. Cloud Functions 2nd gen gets
 * none of them from Google, and a client can send any of them, so they are read only where the operator
 * declares them trusted (TRUST_GEO_HEADERS). Undefined when none is present.
 */
export function placeFromGeoHeaders(headers: Headers): ScanPlace | undefined {
  const pairs: Array<[string, string]> = [
    ["x-appengine-city", "x-appengine-region"],
    ["x-client-geo-city", "x-client-geo-region"],
    ["cf-ipcity", "cf-region-code"],
  ];
  for (const [cityHeader, regionHeader] of pairs) {
    const city = clean(header(headers, cityHeader));
    const state = clean(header(headers, regionHeader));
    if (city || state) return { city: city ?? "unknown", state: state ?? "unknown" };
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
