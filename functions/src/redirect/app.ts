// Dynamic links: GET /qr/<uniqueQRCodeID> reads the link document (one read: a re-point applies to the
// very next scan; only a read past its deadline is answered from the instance's last-known-good link),
// records the scan (one group-committed batch: a person's event and its code's and workspace's rollup
// shards) and publishes it to the scan stream, and answers 302 only when all are done, so a scan whose
// redirect was answered survives the instance dying at that moment. Nothing runs after the response
// unless a write, the publish or a webhook enqueue passed its bound (5 s, 5 s, 300 ms), and nothing runs
// later per scan (no trigger).
// Which workspace and code a link belongs to never changes, so an instance remembers it: from the second
// scan of a code on, the read and the write go in parallel. POST /api/scans (redirect/appScans.ts) lets the
// service's own app record scans of codes it read.
// A code with campaign rules (docs/campaign-rules.md) carries them on its link: its scan is recorded after
// the read (a schedule or a cap decides how it counts: campaigns/answer.ts campaignGate), then
// campaigns/answer.ts picks the answer (schedule, cap, rules, UTM) from what was read, reading nothing more.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, Response } from "express";
import { logError } from "../core/log";
import { withTimeout } from "../core/firebase";
import { QR_ID_PATTERN } from "../core/ids";
import { getConfig } from "../core/config";
import { API_CSP, createRestApp, pageCsp } from "../http/rest";
import { mountEndpoints } from "../http/endpoint";
import { appScanRoutes } from "./appScans";
import { clientAddressOf } from "../core/clientAddress";
import { readLinks, type Link } from "../store/codes";
import { Coalescer } from "../core/coalescer";
import { workspaceTimeZone as timeZoneOf } from "../scans/timeZones";
import { countOps } from "../store/opCounter";
import { preloadGeoDatabase } from "../scans/geo";
import { placeOfRequest } from "../scans/place";
import { recordScanSafely, scanCountedHeader, type CodeIdentity } from "../scans/record";
import type { CampaignScan, RuleChoice, RuledLink } from "../campaigns/answer";
import { BUSY_RETRY_SECONDS, busyPage, ENDED_STYLE, endedPage, endedStyle, NOT_FOUND_STYLE, type EndedPageBrand, notFoundPage, TAKEN_DOWN_STYLE, takenDownPage, UNAVAILABLE_RETRY_SECONDS, unavailablePage } from "./pages";
import type { ScanPlace } from "../scans/classify";
import { handlePasswordPost, sendPasswordPage } from "./password";

// Loaded on the first scan of a code with a subscription: other workspaces never pay for it.
let webhookScans: typeof import("../webhooks/scans") | undefined;
const webhooks = () => (webhookScans ??= require("../webhooks/scans") as typeof import("../webhooks/scans"));

// Loaded on the first scan of a code with campaign rules (docs/campaign-rules.md): other codes never pay for it.
let campaignAnswers: typeof import("../campaigns/answer") | undefined;
const campaigns = () => (campaignAnswers ??= require("../campaigns/answer") as typeof import("../campaigns/answer"));

preloadGeoDatabase();

function sendNotFound(res: ServerResponse): void {
  res.removeHeader("X-Powered-By"); // the platform's own express app may have set it
  res
    .writeHead(404, { ...SECURITY_HEADERS, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": pageCsp(NOT_FOUND_STYLE) })
    .end(notFoundPage());
}

/**
 * 503 with Retry-After: the link could not be read (a failed read, or none within FIRST_READ_DEADLINE_MS)
 * and this instance knows no last good answer. Never a 404: a printed code that exists must not say it
 * does not; the page loads the code again by itself.
 */
function sendUnavailable(res: ServerResponse): void {
  res.removeHeader("X-Powered-By");
  res
    .writeHead(503, {
      ...SECURITY_HEADERS,
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": pageCsp(ENDED_STYLE),
      "Retry-After": String(UNAVAILABLE_RETRY_SECONDS),
      "Referrer-Policy": "no-referrer",
    })
    .end(unavailablePage());
}

/** A link read that failed or passed FIRST_READ_DEADLINE_MS with no last good answer to serve instead. */
class LinkUnavailable extends Error {}

/** 410: the code exists but an operator took it down; nothing is recorded and nobody is redirected. */
function sendTakenDown(res: ServerResponse): void {
  res.removeHeader("X-Powered-By");
  res
    .writeHead(410, { ...SECURITY_HEADERS, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": pageCsp(TAKEN_DOWN_STYLE) })
    .end(takenDownPage());
}

/** 200: a campaign that has ended or not started, or an `ended` rule, without a fallback URL (never a 404). The scan was recorded. */
function sendEnded(res: ServerResponse, counted: string, brand: EndedPageBrand | undefined): void {
  res.removeHeader("X-Powered-By");
  res
    .writeHead(200, { ...SECURITY_HEADERS, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": pageCsp(endedStyle(brand)), "X-Scan-Counted": counted, "Referrer-Policy": "no-referrer" })
    .end(endedPage(brand));
}

/** 200: a capped code's scan that got no allowance in time; the page loads the code again (docs/campaign-rules.md, "A bounded wait"). */
function sendBusy(res: ServerResponse, counted: string): void {
  res.removeHeader("X-Powered-By");
  res
    .writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": pageCsp(ENDED_STYLE),
      Refresh: String(BUSY_RETRY_SECONDS),
      "X-Scan-Counted": counted,
      "Referrer-Policy": "no-referrer",
    })
    .end(busyPage());
}

/** What every REST answer carries (http/rest.ts securityHeaders), for the redirect's plain-node path. */
const SECURITY_HEADERS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": API_CSP,
  "X-Frame-Options": "DENY",
  ...(getConfig().isEmulator ? {} : { "Strict-Transport-Security": "max-age=63072000; includeSubDomains" }),
};

// ---- per-instance memory: which code a link is (immutable); time zones: scans/timeZones.ts ----

/**
 * How many codes each of the instance's memories (identities, last-known-good links) holds. A test
 * fixture (test/fixtures/redirect-instance-server.ts) makes it small to see them forget; nothing else
 * changes it.
 */
export const instanceMemory = { entries: 20_000 };
const identities = new Map<string, Omit<CodeIdentity, "timeZone">>();
function remember(id: string, link: Link): Omit<CodeIdentity, "timeZone"> {
  const identity = { merchantId: link.merchantId, codeId: link.codeId, campaign: link.campaign ?? null };
  if (identities.size >= instanceMemory.entries) identities.delete(identities.keys().next().value!);
  identities.set(id, identity);
  return identity;
}

/**
 * Link reads, group-committed: requests that arrive while a read is in flight share the next one (one
 * getAll for every id waiting, each id read once). Every request's read is sent after it arrived, so a
 * re-point still applies to the very next scan; a hot code costs far less than one read per scan.
 */
const linkReads = new Coalescer<string, Link | undefined>(async (ids) => {
  const unique = [...new Set(ids)];
  const links = await readLinks(unique);
  countOps({ reads: unique.length });
  const byId = new Map(unique.map((id, i) => [id, links[i]]));
  return ids.map((id) => byId.get(id));
}, 100);

/** How long a scan waits for its link read before a last-known-good answer may serve it. */
export const LINK_READ_DEADLINE_MS = 300;
/** How long a scan of a code this instance has no last known link for waits for the read before a 503. */
export const FIRST_READ_DEADLINE_MS = 3_000;
/** The newest link this instance read for each id: served only when a read passes its deadline. */
const lastGood = new Map<string, Link>();

function rememberGood(id: string, link: Link | undefined): void {
  if (!link) return;
  lastGood.delete(id); // re-inserted last: the map's order is least recently read first
  if (lastGood.size >= instanceMemory.entries) lastGood.delete(lastGood.keys().next().value!);
  lastGood.set(id, link);
}

type ServedLink = { link: Link | undefined; servedFrom: "live" | "last-known-good" };

/**
 * The link for this scan: always read (a re-point applies to the very next scan on every instance). Only
 * when the read passes LINK_READ_DEADLINE_MS and this instance has read the link before does the last
 * known answer serve the scan (and when the read fails); the late read still refreshes it. Without one, the
 * scan waits for the read.
 */
function readLinkInTime(id: string): Promise<ServedLink> {
  const read = linkReads.submit(id).then((link) => (rememberGood(id, link), link));
  const known = lastGood.get(id);
  if (!known) {
    // Nothing to fall back on: a failed read, or one slower than FIRST_READ_DEADLINE_MS (the SDK retries a
    // read for minutes), is LinkUnavailable, answered 503, never "no such code".
    return withTimeout(read, FIRST_READ_DEADLINE_MS, "link read").then(
      (link) => ({ link, servedFrom: "live" }),
      (error: unknown) => {
        logError("redirect.link_read_failed", "link read failed with no last known link: answered 503", error, { uniqueQRCodeID: id });
        throw new LinkUnavailable("link read failed");
      },
    );
  }
  return new Promise<ServedLink>((resolve) => {
    const timer = setTimeout(() => resolve({ link: lastGood.get(id) ?? known, servedFrom: "last-known-good" }), LINK_READ_DEADLINE_MS);
    read.then(
      (link) => (clearTimeout(timer), resolve({ link, servedFrom: "live" })),
      // A failed read is answered like a late one: the scanner gets the code's last known link, not a 404.
      (error: unknown) => {
        clearTimeout(timer);
        logError("redirect.link_read_failed", "link read failed: answered from the last known link", error, { uniqueQRCodeID: id });
        resolve({ link: lastGood.get(id) ?? known, servedFrom: "last-known-good" });
      },
    );
  });
}

/** GET and HEAD /qr/<id>, on Node's own request and response: the hot path skips express entirely. */
async function handleRedirect(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
  if (!QR_ID_PATTERN.test(id)) return sendNotFound(res);
  const at = new Date();
  let place: ScanPlace | undefined;
  let choice: RuleChoice | undefined;
  /** The scan as campaign rules see it: described once, when its time zone is known, for the rule choice and the answer. */
  let campaignScan: CampaignScan | undefined;
  const address = clientAddressOf(req);
  const describe = (timeZone: string): CampaignScan => (campaignScan ??= { method: req.method ?? "GET", headers: req.headers, url: req.url ?? "", address, place, at, timeZone });
  /** Records the scan; a code with rules (`ruled`) is recorded with its gate and the rule that answers it. */
  const record = async (identity: Omit<CodeIdentity, "timeZone">, servedFrom: Promise<ServedLink["servedFrom"]>, ruled?: RuledLink) => {
    let timeZone: string;
    [timeZone, place] = await Promise.all([timeZoneOf(identity.merchantId, at.getTime()), placeOfRequest(req)]);
    const campaign = ruled ? campaigns() : undefined;
    if (ruled && campaign) choice = new campaign.RuleChoice(ruled, describe(timeZone));
    return recordScanSafely({ ...identity, timeZone }, id, {
      method: req.method ?? "GET",
      headers: req.headers,
      address,
      place,
      at,
      source: "redirect",
      servedFrom,
      // A code with campaign settings is recorded after its link is read: a schedule or a cap decides how its scan counts.
      ...(ruled && campaign ? { gate: campaign.campaignGate(ruled, at), chooseRule: choice!.choose, utm: campaign.utmCounted(ruled) } : {}),
    });
  };
  const ruledOf = (link: Link): RuledLink | undefined => (link.campaignRules ? { ...link, campaignRules: link.campaignRules } : undefined);
  // The fast path below needs the last link read as much as the identity: the two memories forget
  // separately, and a code whose rules or takedown this instance no longer holds must be read first.
  const known = lastGood.has(id) ? identities.get(id) : undefined;
  if (known && lastGood.get(id)?.takenDown) {
    // Taken down when this instance last read it: read again (a restore applies at once) before recording anything.
    const fresh = await readLinkInTime(id);
    if (!fresh.link || fresh.link.takenDown) return fresh.link ? sendTakenDown(res) : sendNotFound(res);
  }
  let served: ServedLink;
  let outcome: Awaited<ReturnType<typeof recordScanSafely>>;
  let gated = true;
  if (known && !lastGood.get(id)?.campaignRules) {
    gated = false;
    // The read and the scan's write go together; the scan's stream event learns how the link was served.
    const reading = readLinkInTime(id);
    [served, outcome] = await Promise.all([reading, record(known, reading.then((r) => r.servedFrom, () => "live" as const))]);
  } else {
    served = await readLinkInTime(id);
    if (!served.link) return sendNotFound(res);
    if (served.link.takenDown) return sendTakenDown(res);
    outcome = await record(known ?? remember(id, served.link), Promise.resolve(served.servedFrom), ruledOf(served.link));
  }
  const link = served.link;
  if (!link) return sendNotFound(res); // links are never deleted; a remembered id always has one
  // Taken down between scans: the read that found it went with a scan already written (counted, never redirected).
  if (link.takenDown) return sendTakenDown(res);
  // Queued before the 302, like the scan itself, waiting at most WEBHOOK_QUEUE_WAIT_MS (a slower enqueue finishes after the answer).
  if (link.webhookIds?.length && outcome && place) await webhooks().tellScanSubscribers(link, id, at, place, req.headers["user-agent"], outcome);
  const counted = scanCountedHeader(outcome);
  let location = link.destinationUrl;
  if (link.campaignRules) {
    // The rules came with the link just read: a change applies on the very next scan, and nothing more is read.
    // Described already when the scan was recorded with its rules; else (the rules came with this read) now.
    const scan = campaignScan ?? describe(await timeZoneOf(link.merchantId, at.getTime()));
    const answer = await campaigns().campaignAnswer({ ...link, campaignRules: link.campaignRules }, scan, { outcome, gated, choice });
    // The merchant's branding came with the link (copied when its rules were set): nothing more is read.
    if (answer.type === "ended") return sendEnded(res, counted, (link.campaignRules as { brand?: EndedPageBrand }).brand);
    if (answer.type === "busy") return sendBusy(res, counted);
    if (answer.type === "password") return sendPasswordPage(res, SECURITY_HEADERS, { "X-Scan-Counted": counted });
    location = answer.url;
  }
  res.removeHeader("X-Powered-By");
  res
    .writeHead(302, {
      ...SECURITY_HEADERS,
      Location: location,
      "Cache-Control": "no-store",
      "X-Scan-Counted": counted,
      ...(served.servedFrom === "last-known-good" ? { "X-Link-Served": "last-known-good" } : {}),
      "Referrer-Policy": "no-referrer",
      "Content-Length": "0",
    })
    .end();
}

export const appScansApp = createRestApp((app) => {
  mountEndpoints(app, "app-scans", appScanRoutes);
  app.use((_req: Request, res: Response) => sendNotFound(res));
}, { cors: "app-scans" });

const QR_PATH = /^\/qr\/([^/?#]*)\/?(?:[?#]|$)/;

/** The redirect function: /qr/<id> (GET, HEAD) on the plain-node path, everything else through express. */
export function redirectApp(req: IncomingMessage, res: ServerResponse): void {
  const match = req.method === "GET" || req.method === "HEAD" || req.method === "POST" ? QR_PATH.exec(req.url ?? "") : null;
  if (!match) return void appScansApp(req as Request, res as Response);
  let id: string;
  try {
    id = decodeURIComponent(match[1]);
  } catch {
    return sendNotFound(res);
  }
  if (!QR_ID_PATTERN.test(id)) return sendNotFound(res);
  const handled = req.method === "POST" ? handlePasswordPost(req, res, id, { headers: SECURITY_HEADERS, timeZoneOf, campaigns, sendNotFound }) : handleRedirect(req, res, id);
  handled.catch((error) => {
    if (!(error instanceof LinkUnavailable)) logError("redirect.failed", "redirect failed", error);
    // A failure is not an answer about the code: 503, which the scanner's browser tries again.
    if (!res.headersSent) sendUnavailable(res);
  });
}
