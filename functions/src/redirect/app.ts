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
import { knownTimeZone, workspaceTimeZone as timeZoneOf } from "../scans/timeZones";
import { arrivalOf, markServedLastKnownGood, recordArrival } from "../scans/arrival";
import { countOps } from "../store/opCounter";
import { preloadGeoDatabase } from "../scans/geo";
import { placeOfRequest } from "../scans/place";
import { recordScanSafely, scanCountedHeader, type ScanOutcome } from "../scans/record";
import type { CampaignScan, RuledLink } from "../campaigns/answer";
import type { ScanPlace } from "../scans/classify";
import { BUSY_RETRY_SECONDS, busyPage, ENDED_STYLE, endedPage, endedStyle, type EndedPageBrand, notFoundPage, notFoundStyle, type PageBrand, TAKEN_DOWN_STYLE, takenDownPage, UNAVAILABLE_RETRY_SECONDS, unavailablePage } from "./pages";
import { handlePasswordPost, linkBrandOf, sendPasswordPage } from "./password";
import { knownCode, remember, rememberGood, servableLastGood, type Identity } from "./memory";
import { customHostOf, HostUnavailable, serveCustomHost } from "./customHost";
import { LIMITED_REASON, scanLimit, type ScanAdmission } from "../scans/clientLimit";
import { requestTime, TEST_SCAN_COUNTED_HEADER } from "../core/testClock";
import { trackedAnswer, type ScanClick } from "../attribution/onRedirect";
import { rememberedWorkspaceAttribution } from "../attribution/settings";
import { DISCOUNT_PATH, sendDiscountPage } from "./discountPage";
import { newScanId } from "../scans/arrival";
import { botReason } from "../scans/classify";

// Loaded on the first scan of a code with a subscription: other workspaces never pay for it.
let webhookScans: typeof import("../webhooks/scans") | undefined;
const webhooks = () => (webhookScans ??= require("../webhooks/scans") as typeof import("../webhooks/scans"));

// Loaded on the first scan of a code with campaign rules (docs/campaign-rules.md): other codes never pay for it.
let campaignAnswers: typeof import("../campaigns/answer") | undefined;
const campaigns = () => (campaignAnswers ??= require("../campaigns/answer") as typeof import("../campaigns/answer"));

preloadGeoDatabase();

/** 404 "this QR code is not active"; `brand`: the merchant's, on its own host (redirect/customHost.ts). */
function sendNotFound(res: ServerResponse, brand?: PageBrand): void {
  res.removeHeader("X-Powered-By"); // the platform's own express app may have set it
  res
    .writeHead(404, { ...SECURITY_HEADERS, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": pageCsp(notFoundStyle(brand)) })
    .end(notFoundPage(brand));
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
function sendEnded(res: ServerResponse, counted: string | undefined, brand: EndedPageBrand | undefined): void {
  res.removeHeader("X-Powered-By");
  res
    .writeHead(200, { ...SECURITY_HEADERS, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": pageCsp(endedStyle(brand)), ...countedHeaders(counted), "Referrer-Policy": "no-referrer" })
    .end(endedPage(brand));
}

/** 200: a capped code's scan that got no allowance in time; the page loads the code again (docs/campaign-rules.md, "A bounded wait"). */
function sendBusy(res: ServerResponse, counted: string | undefined): void {
  res.removeHeader("X-Powered-By");
  res
    .writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": pageCsp(ENDED_STYLE),
      Refresh: String(BUSY_RETRY_SECONDS),
      ...countedHeaders(counted),
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

// ---- per-instance memory: which code a link is and its last link (redirect/memory.ts); time zones: scans/timeZones.ts ----

export { instanceMemory } from "./memory";

/** How long a scan waits for its link read before a last-known-good answer may serve it. */
export const LINK_READ_DEADLINE_MS = 300;
/** How long a scan of a code this instance has no last known link for waits for the read before a 503. */
export const FIRST_READ_DEADLINE_MS = 3_000;

/**
 * Link reads, group-committed: requests that arrive while a read is in flight share the next one (one
 * getAll for every id waiting, each id read once). Every request's read is sent after it arrived, so a
 * re-point still applies to the very next scan; a hot code costs far less than one read per scan.
 */
const linkReads = new Coalescer<string, Link | undefined>(async (ids) => {
  const unique = [...new Set(ids)];
  // Given up at the first read's deadline: the SDK re-sends a refused read for seconds and keeps one Firestore
  // never answers open (core/firebase.ts), and every scan after it would wait for it; given up, the next scan
  // sends a read of its own, answered once Firestore is.
  const links = await withTimeout(readLinks(unique), FIRST_READ_DEADLINE_MS, "link read");
  countOps({ reads: unique.length });
  const byId = new Map(unique.map((id, i) => [id, links[i]]));
  return ids.map((id) => byId.get(id));
}, 100);

type ServedLink = { link: Link | undefined; servedFrom: "live" | "last-known-good" };

/**
 * The link for this scan: always read (a re-point applies to the very next scan on every instance). Only
 * when the read passes LINK_READ_DEADLINE_MS (or fails) and this instance holds a last link it may serve at
 * `now` (redirect/memory.ts servableLastGood: an ordinary code read recently, or a taken-down one) does that
 * link serve the scan; the late read still refreshes it. Without one, the scan waits for the read.
 */
function readLinkInTime(id: string, now: number): Promise<ServedLink> {
  const read = linkReads.submit(id).then((link) => (rememberGood(id, link), link));
  // Nothing to fall back on: a failed read, or one slower than FIRST_READ_DEADLINE_MS (the SDK retries a
  // read for minutes), is LinkUnavailable, answered 503, never "no such code".
  const waitForRead = () =>
    withTimeout(read, FIRST_READ_DEADLINE_MS, "link read").then(
      (link): ServedLink => ({ link, servedFrom: "live" }),
      (error: unknown) => {
        logError("redirect.link_read_failed", "link read failed with no last known link it may serve: answered 503", error, { uniqueQRCodeID: id });
        throw new LinkUnavailable("link read failed");
      },
    );
  if (!servableLastGood(id, now)) return waitForRead();
  return new Promise<ServedLink>((resolve, reject) => {
    const fallBack = () => {
      const known = servableLastGood(id, now);
      if (known) resolve({ link: known, servedFrom: "last-known-good" });
      else waitForRead().then(resolve, reject);
    };
    const timer = setTimeout(fallBack, LINK_READ_DEADLINE_MS);
    read.then(
      (link) => (clearTimeout(timer), resolve({ link, servedFrom: "live" })),
      // A failed read is answered like a late one: the scanner gets the code's last known link, not a 404.
      (error: unknown) => {
        clearTimeout(timer);
        logError("redirect.link_read_failed", "link read failed: answered from the last known link", error, { uniqueQRCodeID: id });
        fallBack();
      },
    );
  });
}

/** GET and HEAD /qr/<id>, on Node's own request and response: the hot path skips express entirely. */
async function handleRedirect(req: IncomingMessage, res: ServerResponse, id: string, host?: string): Promise<void> {
  if (!QR_ID_PATTERN.test(id)) return sendNotFound(res);
  const at = new Date(requestTime(req.headers, getConfig().honoursTestClock));
  const address = clientAddressOf(req);
  const admission = scanLimit.admit(address, at.getTime());
  // The fast path below needs the last link read as much as the identity: the two memories forget
  // separately, and a code whose rules or takedown this instance no longer holds must be read first.
  const { last, known } = knownCode(id);
  if (known && last?.takenDown) {
    // Taken down when this instance last read it: read again (a restore applies at once) before recording anything.
    const fresh = await readLinkInTime(id, at.getTime());
    if (!fresh.link || fresh.link.takenDown) return fresh.link ? sendTakenDown(res) : sendNotFound(res);
  }
  // A code this instance knows to have campaign rules is answered after its read (ruledRedirect).
  if (known && last?.campaignRules) return ruledRedirect(req, res, id, at, address, admission, await readLinkInTime(id, at.getTime()), known, host);
  // Every other scan: its arrival is published beside the link read, and the scan is answered when both are
  // done (scans/arrival.ts); the consumer counts it later. A code first seen here is published with the id in
  // its address only.
  const timeZone = known && knownTimeZone(known.merchantId, at.getTime());
  // The workspace's tracking settings, read beside the link when this instance has none yet (attribution/settings.ts).
  if (known) void rememberedWorkspaceAttribution(known.merchantId, at.getTime());
  const recorded = placeOfRequest(req).then((place) =>
    arrivalOf({ method: req.method ?? "GET", headers: req.headers, address, place, at, uniqueQRCodeID: id, ...(host ? { host } : {}), ...(known && timeZone ? { known: { ...known, timeZone } } : {}), ...limitedAs(admission) }).then((arrival) =>
      recordUnlessLimited(arrival, admission, known?.merchantId).then((outcome) => ({ outcome, place, botReason: arrival.botReason, scanId: arrival.scanId, arrival })),
    ),
  );
  const reading = readLinkInTime(id, at.getTime());
  const [served, arrival] = await Promise.all([reading, recorded]);
  const link = served.link;
  if (!link) return sendNotFound(res); // the consumer drops the arrival of an id that names no code
  if (link.takenDown) return sendTakenDown(res);
  const identity = known ?? remember(id, link);
  const counted = countedHeader(arrival.outcome, arrival.botReason);
  if (served.servedFrom === "last-known-good" && arrival.outcome === "recorded") await markServedLastKnownGood(arrival.arrival);
  const click = (rule: ScanClick["rule"]): ScanClick => ({ uniqueQRCodeID: id, scanId: arrival.scanId, person: !arrival.botReason, rule, at, customHost: customHostOf(req) });
  if (!link.campaignRules) return sendTracked(res, link, link.destinationUrl, counted, served.servedFrom, click({ index: null }));
  // Rules added since this instance last read the code: its arrival was published as a plain code's (the
  // consumer counts it so), and the rules answer it, taking an allowance alone where they cap (campaigns/answer.ts).
  if (known && timeZone) {
    const ruled = { ...link, campaignRules: link.campaignRules };
    return answerByRules(res, ruled, campaignScanOf(req, address, arrival.place, at, timeZone), served.servedFrom, countedFor(req, ruled, counted), { outcome: arrivalOutcome(arrival.botReason), gated: false }, click);
  }
  // First seen here and it has rules: its arrival is left to the consumer's drop (a ruled code's arrival
  // published before the read), and the scan is counted with the rules' answer under the same scan id.
  return ruledRedirect(req, res, id, at, address, admission, served, identity, host, { scanId: arrival.scanId, place: arrival.place });
}

/** X-Scan-Counted for a scan whose arrival was recorded (or not): a machine's keeps its reason, a closed code's person its own. */
function countedHeader(outcome: "recorded" | "unknown" | "limited", reason: string | null): string {
  return outcome === "unknown" ? "unknown" : outcome === "limited" ? NOT_RECORDED : reason ? `false; reason=${reason}` : "recorded";
}

// ---- the per-client scan limit (scans/clientLimit.ts): past it a scan is answered, not recorded ----

/** A scan past its client's limit is a machine's (its marker), whoever sent it. */
const limitedAs = (admission: ScanAdmission) => (admission === "record" ? {} : { machineReason: LIMITED_REASON });

/** Records the arrival unless its client is past the limit and its marker is recorded already. */
function recordUnlessLimited(arrival: Parameters<typeof recordArrival>[0], admission: ScanAdmission, merchantId: string | undefined): Promise<"recorded" | "unknown" | "limited"> {
  return admission === "answer-only" ? Promise.resolve("limited") : recordArrival(arrival, merchantId);
}

/** How a capped code's scan past the limit is seen by its rules: a machine's, not recorded. */
const LIMITED_OUTCOME: ScanOutcome = { counted: false, reason: LIMITED_REASON };
/** X-Scan-Counted of a scan past its client's limit and its marker: answered, not recorded (its marker is `false; reason=limited`). */
const NOT_RECORDED = `not-recorded; reason=${LIMITED_REASON}`;

/**
 * X-Scan-Counted, except on a code with a cap or scan-count thresholds, whose answers say nothing of how the
 * scan counted (whether it spent an allowance: docs/campaign-rules.md, "A fair count of people"). The local
 * stack shows it there too when a test asks (X-Test-Scan-Counted: 1, honoured where the test clock is).
 */
function countedFor(req: IncomingMessage, link: RuledLink, counted: string): string | undefined {
  if (!campaigns().admitsBeforeAnswer(link)) return counted;
  return getConfig().honoursTestClock && req.headers[TEST_SCAN_COUNTED_HEADER] === "1" ? counted : undefined;
}

/** How the rules see a scan counted by the consumer (a machine's, or a person's not yet decided: never a unique here). */
const arrivalOutcome = (botReason: string | null): ScanOutcome => (botReason ? { counted: false, reason: botReason } : { counted: true, unique: false });

function campaignScanOf(req: IncomingMessage, address: string, place: ScanPlace | undefined, at: Date, timeZone: string): CampaignScan {
  return { method: req.method ?? "GET", headers: req.headers, url: req.url ?? "", address, place, at, timeZone };
}

/** The rules' answer to a scan already recorded (`recorded`: how it counted), sent. */
async function answerByRules(res: ServerResponse, ruled: RuledLink, scan: CampaignScan, servedFrom: ServedLink["servedFrom"], counted: string | undefined, recorded: Parameters<ReturnType<typeof campaigns>["campaignAnswer"]>[2], click: (rule: ScanClick["rule"]) => ScanClick): Promise<void> {
  const answer = await campaigns().campaignAnswer(ruled, scan, recorded);
  if (answer.type !== "redirect") return sendCampaignPage(res, answer, counted, ruled);
  return sendTracked(res, ruled, answer.url, counted, servedFrom, click(ruleOf(answer)));
}

/** The rule and A/B variant a redirect answer came from (null: the destination), for its click id. */
const ruleOf = (answer: { ruleIndex: number | null; variant?: number }): ScanClick["rule"] => ({ index: answer.ruleIndex, ...(answer.variant === undefined ? {} : { variant: answer.variant }) });

/** A 302 with the click id of a tracked code's scan on its destination (and cookie: attribution/onRedirect.ts). */
async function sendTracked(res: ServerResponse, link: Link, location: string, counted: string | undefined, servedFrom: ServedLink["servedFrom"], click: ScanClick): Promise<void> {
  const tracked = await trackedAnswer(link, location, click);
  sendRedirect(res, tracked.location, counted, servedFrom, tracked.cookie);
}

function sendRedirect(res: ServerResponse, location: string, counted: string | undefined, servedFrom: ServedLink["servedFrom"], cookie?: string): void {
  res.removeHeader("X-Powered-By");
  res
    .writeHead(302, {
      ...SECURITY_HEADERS,
      ...(cookie ? { "Set-Cookie": cookie } : {}),
      Location: location,
      "Cache-Control": "no-store",
      ...countedHeaders(counted),
      ...(servedFrom === "last-known-good" ? { "X-Link-Served": "last-known-good" } : {}),
      "Referrer-Policy": "no-referrer",
      "Content-Length": "0",
    })
    .end();
}

type CampaignAnswer = Awaited<ReturnType<ReturnType<typeof campaigns>["campaignAnswer"]>>;

function sendCampaignPage(res: ServerResponse, answer: Exclude<CampaignAnswer, { type: "redirect" }>, counted: string | undefined, link: Link): void {
  // The merchant's branding came with the link (copied when its rules were set): nothing more is read.
  if (answer.type === "ended") return sendEnded(res, counted, (link.campaignRules as { brand?: EndedPageBrand }).brand);
  if (answer.type === "busy") return sendBusy(res, counted);
  return sendPasswordPage(res, SECURITY_HEADERS, countedHeaders(counted), "none", 200, linkBrandOf(link));
}

/** The X-Scan-Counted header, when the answer carries one (countedFor). */
const countedHeaders = (counted: string | undefined): Record<string, string> => (counted === undefined ? {} : { "X-Scan-Counted": counted });

/**
 * A code with campaign rules, its link read. A cap or scan-count thresholds admit a person's scan before its
 * answer, so such a scan is counted here (campaigns/answer.ts campaignGate; scans/record.ts) and published
 * to the stream with the rule that answered it. Any other rules answer first, reading nothing, and the
 * scan's arrival carries their answer to the consumer (scans/arrival.ts `answered`); `first` is the arrival
 * a code first seen here was published with before its read (its scan id is kept: one scan).
 */
async function ruledRedirect(req: IncomingMessage, res: ServerResponse, id: string, at: Date, address: string, admission: ScanAdmission, served: ServedLink, identity: Identity, host: string | undefined, first?: { scanId: string; place: ScanPlace }): Promise<void> {
  const link = served.link;
  if (!link) return sendNotFound(res);
  if (link.takenDown) return sendTakenDown(res);
  const [timeZone, place] = await Promise.all([timeZoneOf(identity.merchantId, at.getTime()), first?.place ?? placeOfRequest(req)]);
  // `host` rides on the identity into the capped path's facts (scans/record.ts spreads them), counted per host there too.
  const known = { ...identity, timeZone, ...(host ? { host } : {}) };
  const arrive = (answered?: Parameters<typeof arrivalOf>[0]["answered"]) =>
    arrivalOf({ method: req.method ?? "GET", headers: req.headers, address, place, at, uniqueQRCodeID: id, known, ...(host ? { host } : {}), ...(answered ? { answered } : {}), ...limitedAs(admission) }).then(async (arrival) => ({ arrival, outcome: await recordUnlessLimited(arrival, admission, identity.merchantId) }));
  if (!link.campaignRules) {
    // Rules removed since this instance read them: a plain code's scan (a first arrival is counted as one already).
    const plain = first ? { counted: "recorded", scanId: first.scanId, machine: botReason(req.method ?? "GET", req.headers) } : await arrive().then(({ arrival, outcome }) => ({ counted: countedHeader(outcome, arrival.botReason), scanId: arrival.scanId, machine: arrival.botReason }));
    return sendTracked(res, link, link.destinationUrl, plain.counted, served.servedFrom, { uniqueQRCodeID: id, scanId: plain.scanId, person: !plain.machine, rule: { index: null }, at, customHost: customHostOf(req) });
  }
  const ruled: RuledLink = { ...link, campaignRules: link.campaignRules };
  const campaign = campaigns();
  const scan = campaignScanOf(req, address, place, at, timeZone);
  if (!campaign.admitsBeforeAnswer(ruled)) {
    const answer = await campaign.campaignAnswer(ruled, scan);
    const answered = campaign.answeredOf(ruled, answer, at);
    const { arrival, outcome } = await arrive({ ...answered, ...(first ? { scanId: first.scanId } : {}) });
    const counted = countedHeader(outcome, arrival.botReason ?? answered.endedReason ?? null);
    if (answer.type !== "redirect") return sendCampaignPage(res, answer, counted, link);
    return sendTracked(res, link, answer.url, counted, served.servedFrom, { uniqueQRCodeID: id, scanId: arrival.scanId, person: !arrival.botReason, rule: ruleOf(answer), at, customHost: customHostOf(req) });
  }
  const choice = new campaign.RuleChoice(ruled, scan);
  // A view of the password page spends nothing: only the right password's pass-through does (redirect/password.ts).
  const spends = !(await campaign.answersWithPasswordPage(ruled, choice));
  // One id for the scan as counted and streamed and for its click id, so a conversion joins its scan.
  const scanId = newScanId();
  const outcome =
    admission === "answer-only"
      ? LIMITED_OUTCOME
      : await recordScanSafely(known, id, {
          scanId,
          method: req.method ?? "GET",
          headers: req.headers,
          address,
          place,
          at,
          source: "redirect",
          servedFrom: served.servedFrom,
          gate: campaign.campaignGate(ruled, at, spends),
          chooseRule: choice.choose,
          utm: campaign.utmCounted(ruled),
          ...limitedAs(admission),
        });
  // Queued before the answer, like the scan itself, waiting at most WEBHOOK_QUEUE_WAIT_MS (a slower enqueue finishes after the answer).
  if (link.webhookIds?.length && outcome && admission !== "answer-only") await webhooks().tellScanSubscribers(link, id, at, place, req.headers["user-agent"], outcome);
  const counted = countedFor(req, ruled, admission === "answer-only" ? NOT_RECORDED : scanCountedHeader(outcome));
  const answer = await campaign.campaignAnswer(ruled, scan, { outcome, gated: true, choice, spends });
  if (answer.type !== "redirect") return sendCampaignPage(res, answer, counted, link);
  const person = botReason(req.method ?? "GET", req.headers) === null;
  return sendTracked(res, link, answer.url, counted, served.servedFrom, { uniqueQRCodeID: id, scanId, person, rule: ruleOf(answer), at, customHost: customHostOf(req) });
}

export const appScansApp = createRestApp((app) => {
  mountEndpoints(app, "app-scans", appScanRoutes);
  app.use((_req: Request, res: Response) => sendNotFound(res));
}, { cors: "app-scans" });

const QR_PATH = /^\/qr\/([^/?#]*)\/?(?:[?#]|$)/;

/** The redirect function: a merchant's own host (redirect/customHost.ts), else the service's own host. */
export function redirectApp(req: IncomingMessage, res: ServerResponse): void {
  const host = customHostOf(req);
  if (!host) return serveOwnHost(req, res);
  serveCustomHost(req, res, host, { serve: serveOwnHost, sendNotFound }).catch((error) => {
    if (!(error instanceof HostUnavailable)) logError("redirect.custom_host_failed", "custom host answer failed", error, { host });
    if (!res.headersSent) sendUnavailable(res);
  });
}

/**
 * The service's own host: /qr/<id> (GET, HEAD) on the plain-node path, everything else through express. A
 * merchant's host served here (redirect/customHost.ts) passes its name, which the scan records.
 */
function serveOwnHost(req: IncomingMessage, res: ServerResponse, host?: string): void {
  const discount = req.method === "GET" || req.method === "HEAD" ? DISCOUNT_PATH.exec(req.url ?? "") : null;
  if (discount) {
    return void sendDiscountPage(req, res, discount[1], SECURITY_HEADERS).catch((error: unknown) => {
      logError("redirect.discount_page_failed", "a discount page failed", error);
      if (!res.headersSent) sendUnavailable(res);
    });
  }
  const match = req.method === "GET" || req.method === "HEAD" || req.method === "POST" ? QR_PATH.exec(req.url ?? "") : null;
  if (!match) return void appScansApp(req as Request, res as Response);
  let id: string;
  try {
    id = decodeURIComponent(match[1]);
  } catch {
    return sendNotFound(res);
  }
  if (!QR_ID_PATTERN.test(id)) return sendNotFound(res);
  const handled = req.method === "POST" ? handlePasswordPost(req, res, id, { headers: SECURITY_HEADERS, timeZoneOf, campaigns, sendNotFound }) : handleRedirect(req, res, id, host);
  handled.catch((error) => {
    if (!(error instanceof LinkUnavailable)) logError("redirect.failed", "redirect failed", error);
    // A failure is not an answer about the code: 503, which the scanner's browser tries again.
    if (!res.headersSent) sendUnavailable(res);
  });
}
