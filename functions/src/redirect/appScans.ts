// POST /api/scans: the service's own app reports a scan of a code it read (a signed-in user, one count
// per user, code and repeat window), counted as a redirect's scan is.
import { z } from "zod";
import { AppError } from "../core/errors";
import { ids } from "../core/ids";
import { sha256Hex } from "../core/hash";
import { getConfig } from "../core/config";
import { endpoint } from "../http/endpoint";
import { readLink } from "../store/codes";
import { readWorkspaceTimeZone } from "../store/workspaces";
import { APP_SCAN_REPEAT_MS, countAppScan } from "../store/scans";
import { placeOfRequest } from "../scans/place";
import { scanEventOf, streamScan, uniqueEventId, visitorHash, type ScanOutcome } from "../scans/record";
import { newScanId } from "../scans/arrival";
import { deviceOf } from "../scans/device";
import { localMoment } from "../scans/localTime";

type AppScanCount = Awaited<ReturnType<typeof countAppScan>>;
const appScansInFlight = new Map<string, Promise<AppScanCount>>();

async function trackAppScan(markId: string, counting: Promise<AppScanCount>): Promise<AppScanCount> {
  appScansInFlight.set(markId, counting);
  try {
    return await counting;
  } finally {
    appScansInFlight.delete(markId);
  }
}

// The place of an app scan comes from the caller's address, like a redirect's, never from the body.
const AppScanSchema = z.object({ uniqueQRCodeID: ids.uniqueQRCodeID }).strict();

export const AppScanResponseSchema = z
  .object({
    ok: z.literal(true),
    counted: z.boolean().describe("false when this user's scan of the code was already counted recently"),
    reason: z.string().optional().describe("Why it was not counted"),
  })
  .meta({ title: "AppScan" });

const appScanEndpoint = endpoint({
  method: "POST",
  path: "/api/scans",
  summary: "Report a scan made inside the service's app",
  credential: "user",
  limit: "appScans",
  body: AppScanSchema,
  response: AppScanResponseSchema,
  doc: {
    operationId: "reportAppScan",
    description:
      "Counts a scan of the code with this uniqueQRCodeID by the signed-in user, placed by the caller's address as a redirect's is. " +
      `201 when counted; 200 when the same user's scan of the code was counted in the last ${APP_SCAN_REPEAT_MS / 60_000} minutes.`,
    success: [201, 200],
    errors: ["NOT_FOUND"],
    example: { body: { uniqueQRCodeID: "aB3dE5gH7jK9" }, response: { ok: true, counted: true } },
  },
  async handle({ req, res, user, body }) {
    const link = await readLink(body.uniqueQRCodeID);
    if (!link) throw new AppError("NOT_FOUND", "No code with this uniqueQRCodeID");
    const at = new Date();
    const [place, timeZone] = await Promise.all([placeOfRequest(req), readWorkspaceTimeZone(link.merchantId)]);
    const { day, hour } = localMoment(at, timeZone);
    const ua = req.headers["user-agent"];
    const facts = {
      merchantId: link.merchantId,
      codeId: link.codeId,
      uniqueQRCodeID: body.uniqueQRCodeID,
      campaign: link.campaign ?? null,
      at,
      day,
      hour,
      timeZone,
      place,
      device: deviceOf(typeof ua === "string" ? ua : undefined),
      source: "app" as const,
      retentionDays: getConfig().scanRetentionDays,
    eventRetentionDays: getConfig().scanEventRetentionDays,
    };
    // The app's user is the visitor: one unique per user, code and day.
    const visitor = await visitorHash(day, link.codeId, `user:${user.uid}`);
    const markId = sha256Hex(`${user.uid}\n${body.uniqueQRCodeID}`).slice(0, 40);
    // A report already being counted on this instance answers for its concurrent duplicates (the
    // transaction still decides across instances).
    const pending = appScansInFlight.get(markId);
    let counted = false;
    if (pending) await pending.catch(() => undefined);
    else {
      // Every report reaches the stream, counted or not (its queries apply the same repeat rule).
      const event = scanEventOf(facts, newScanId(), { botReason: null, visitor }, "live");
      const [count] = await Promise.all([
        trackAppScan(markId, countAppScan(markId, facts, uniqueEventId(day, link.codeId, visitor), `a~${visitor}~${at.getTime()}~${link.codeId}`)),
        streamScan(event),
      ]);
      counted = count.counted;
      // Subscribers hear of an app's scan as of a redirect's: a person's scan, or a repeat within the window.
      const outcome: ScanOutcome = count.counted ? count : { counted: false, reason: "repeat" };
      if (link.webhookIds?.length) await (await import("../webhooks/scans")).tellScanSubscribers(link, body.uniqueQRCodeID, at, place, typeof ua === "string" ? ua : undefined, outcome);
    }
    res.status(counted ? 201 : 200);
    return counted
      ? { ok: true as const, counted: true }
      : { ok: true as const, counted: false, reason: `already counted for this user in the last ${APP_SCAN_REPEAT_MS / 60_000} minutes` };
  },
});

export const appScanRoutes = [appScanEndpoint];
