// A scan's arrival: what the redirect records of a scan of a code without a cap or scan-count thresholds,
// before it answers. Classified on the instance (machine or person, device, place, visitor hashes) and
// published at once, beside the link read (store/scanStream.ts): that message is the scan's one durable
// record, and the scan consumer (scans/consume.ts) counts it later. Nothing is written to Firestore for a
// scan unless the publish fails or passes its bound: then the arrival goes to the outbox (store/scanOutbox.ts),
// which the consumer drains too; only when both fail is the scan's record unknown (logged, counted in
// `arrivalCounts`). The instance notes when it published, written at most every 10 s and never waited for
// (store/scanArrivalMarks.ts: the consumer's lag).
//
// A code this instance knows (its identity and its workspace's time zone in memory) is published resolved:
// workspace, code, local day and hour, the visitor's hash for that day. One it does not know yet is
// published with the id in its address only, and the visitor's and client's hashes for every local day the
// scan's instant can fall on anywhere (UTC-12 to UTC+14: two or three days, attribute `vd`); the consumer
// reads the code and its zone and keeps the day's hashes. The address and User-Agent never leave the instance.
import type { IncomingHttpHeaders } from "node:http";
import { randomBytes } from "node:crypto";
import { withTimeout } from "../core/firebase";
import { logScanNotRecorded, logWarn } from "../core/log";
import { decodeScanEvent, encodeScanEvent, publishArrival, publishScanEvent } from "../store/scanStream";
import { writeOutbox } from "../store/scanOutbox";
import { noteArrivalPublished } from "../store/scanArrivalMarks";
import { SCAN_EVENT_VERSION, UNANSWERED, type ScanEvent } from "../store/scanEvents";
import type { ScanPlace, ScanRule } from "../store/scans";
import { botReason } from "./classify";
import { agentOf } from "./device";
import { isTimeZone, localMoment } from "./localTime";
import { clientHash, visitorHash, visitorKey } from "./visitors";

/** How long a scan waits for Pub/Sub to store its arrival before it goes to the outbox instead. */
export const PUBLISH_WAIT_MS = 1_000;
/** How long a scan waits for its outbox write; past it the scan's record is unknown. */
export const OUTBOX_WAIT_MS = 2_000;
/** Outbox writes one instance may have in flight; past it a scan whose publish failed is answered `unknown` at once. */
export const OUTBOX_IN_FLIGHT_MAX = 500;

/** How this instance's arrivals were recorded since it started (the metric the bench and the tests read). */
export const arrivalCounts = { published: 0, outbox: 0, unknown: 0 };

/** What the redirect knows of a code before its read: its identity and its workspace's zone, if in memory. */
export interface KnownCode {
  merchantId: string;
  codeId: string;
  campaign: string | null;
  timeZone: string;
}

export interface ArrivalRequest {
  method: string;
  headers: IncomingHttpHeaders;
  address: string;
  place: ScanPlace;
  at: Date;
  uniqueQRCodeID: string;
  /** The merchant's host the scan came in on (its claim's name: redirect/customHost.ts); absent on the service's own. */
  host?: string;
  /** Set when the instance knows the code and that it has no campaign rules: the consumer counts it whatever the code's rules are by then. */
  known?: KnownCode;
  /**
   * A code whose campaign rules answered the scan here (rules without a cap or scan-count thresholds, read
   * first): what they answered, counted so by the consumer whatever the rules are by then. `scanId` reuses
   * the id of the scan's first arrival (published before its read, as a code first seen here is).
   */
  answered?: { rule?: ScanRule; endedReason?: string; utm?: { source: string; medium: string }; scanId?: string };
  /** Set when the scan is a machine's whoever sent it: a client past its per-minute limit (scans/clientLimit.ts). */
  machineReason?: string;
}

export interface Arrival {
  scanId: string;
  data: Buffer;
  attributes: Record<string, string>;
  /** Null for a person, else the machine's reason (the answer's X-Scan-Counted keeps it). */
  botReason: string | null;
}

/** A new scan's stable id: 128 random bits, so ids never form an increasing range; a retried publish reuses it. */
export function newScanId(): string {
  return randomBytes(16).toString("base64url");
}

const DAY_MS = 86_400_000;
/** The local days an instant can fall on in some time zone: UTC-12 to UTC+14. */
export function candidateDays(at: Date): string[] {
  const days: string[] = [];
  for (let t = at.getTime() - 12 * 3_600_000; ; t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    if (day > new Date(at.getTime() + 14 * 3_600_000).toISOString().slice(0, 10)) break;
    days.push(day);
  }
  return days;
}

/** Describes and encodes one scan's arrival: nothing is read from Firestore (a day's secret is read once per instance). */
export async function arrivalOf(request: ArrivalRequest): Promise<Arrival> {
  const ua = typeof request.headers["user-agent"] === "string" ? request.headers["user-agent"] : undefined;
  const { device, recognised } = agentOf(ua);
  const reason = request.machineReason ?? botReason(request.method, request.headers);
  const id = request.uniqueQRCodeID;
  const who = reason ? undefined : visitorKey(request.address, ua, recognised);
  const hashes = (day: string) => Promise.all([who ? visitorHash(day, id, who) : null, who && recognised ? clientHash(day, id, request.address) : null]);
  // A stored zone this runtime cannot use is left to the consumer (which cannot count it either: it goes to the dead letters).
  const known = request.known && isTimeZone(request.known.timeZone) ? request.known : undefined;
  const answered = request.answered;
  const scanId = answered?.scanId ?? newScanId();
  const attributes: Record<string, string> = { scan_id: scanId, schema_version: String(SCAN_EVENT_VERSION) };
  let visitor: string | null = null;
  let moment = { day: "", hour: 0 };
  if (known) {
    moment = localMoment(request.at, known.timeZone);
    const [v, c] = await hashes(moment.day);
    visitor = v;
    attributes[answered ? "ruled" : "plain"] = "1";
    if (c) attributes.cl = c;
  } else if (who) {
    const days = candidateDays(request.at);
    const all = await Promise.all(days.map(hashes));
    attributes.vd = days.map((day, i) => `${day},${all[i][0]},${all[i][1] ?? ""}`).join(";");
  }
  const event: ScanEvent = {
    schema_version: SCAN_EVENT_VERSION,
    scan_id: scanId,
    at: request.at.getTime() * 1000,
    merchant_id: known?.merchantId ?? "",
    code_id: known?.codeId ?? "",
    unique_qr_code_id: id,
    campaign: known?.campaign ?? null,
    kind: reason ? "bot" : "person",
    bot_reason: reason,
    visitor,
    day: moment.day,
    hour: moment.hour,
    time_zone: known?.timeZone ?? "",
    country: request.place.country,
    region: request.place.state,
    city: request.place.city,
    device: device.device,
    os: device.os,
    browser: device.browser,
    source: "redirect",
    served_from: "arrival",
    ...UNANSWERED,
    host: request.host ?? null,
    ...(answered
      ? {
          rule_index: answered.rule?.index ?? null,
          variant: answered.rule?.variant ?? null,
          rule_answered: answered.rule ? 1 : null,
          ended_reason: answered.endedReason ?? null,
          utm_source: answered.utm?.source ?? null,
          utm_medium: answered.utm?.medium ?? null,
        }
      : {}),
  };
  return { scanId, data: encodeScanEvent(event), attributes, botReason: reason };
}

let outboxInFlight = 0;

/**
 * Makes the arrival durable: published within PUBLISH_WAIT_MS, else written to the outbox within
 * OUTBOX_WAIT_MS. Never rejects: "unknown" when neither was done in time (logged and counted). A publish
 * that lands after its bound and an outbox copy are one scan to the consumer for people (its guards are
 * keyed by scan id); a machine's or repeat's scan may then count twice (docs/scan-stream.md, "Reconciliation").
 */
export async function recordArrival(arrival: Arrival, merchantId = ""): Promise<"recorded" | "unknown"> {
  const published = await withTimeout(publishArrival(arrival.data, arrival.attributes), PUBLISH_WAIT_MS, "scan arrival publish").then(
    () => true,
    (error: unknown) => (logWarn("scan.publish_late", "a scan's arrival was not published in time: written to the outbox", { scanId: arrival.scanId, error: String(error) }), false),
  );
  if (published) {
    arrivalCounts.published++;
    noteArrivalPublished(Date.now());
    return "recorded";
  }
  if (outboxInFlight >= OUTBOX_IN_FLIGHT_MAX) return unknown(arrival, merchantId, new Error(`${OUTBOX_IN_FLIGHT_MAX} outbox writes already in flight`));
  outboxInFlight++;
  try {
    await withTimeout(writeOutbox(arrival.scanId, arrival.data, arrival.attributes, Date.now()), OUTBOX_WAIT_MS, "scan outbox write");
    arrivalCounts.outbox++;
    return "recorded";
  } catch (error) {
    return unknown(arrival, merchantId, error);
  } finally {
    outboxInFlight--;
  }
}

function unknown(arrival: Arrival, merchantId: string, error: unknown): "unknown" {
  arrivalCounts.unknown++;
  logScanNotRecorded({ merchantId, codeId: "", scanId: arrival.scanId }, error);
  return "unknown";
}

/**
 * A scan answered from the instance's last-known-good link (its read passed its deadline or failed, after
 * the arrival was published): a copy of its event goes to the stream marked so, beside the row the consumer
 * publishes once it counted the scan; the stream's "each scan once" view keeps the marked copy
 * (docs/scan-stream.md). Counting is untouched. Rare, so it may decode what it just encoded.
 */
export async function markServedLastKnownGood(arrival: Arrival): Promise<void> {
  const event = decodeScanEvent(arrival.data) as unknown as ScanEvent;
  await withTimeout(publishScanEvent({ ...event, served_from: "last-known-good" }), PUBLISH_WAIT_MS, "a last-known-good scan's marked copy").catch((error: unknown) =>
    logWarn("scan.mark_not_streamed", "a scan answered from last-known-good was not marked in the stream", { scanId: arrival.scanId, error: String(error) }),
  );
}
