// Dynamic links: GET /qr/<uniqueQRCodeID> reads the link document and, in parallel, makes the scan
// durable as a raw record (scanInbox); the 302 goes out only when both are done, so a scan whose redirect
// was answered survives the instance dying at that moment, and nothing runs after the response (with
// request-based CPU allocation, work after the response may be starved). The scanCounter trigger then
// counts the raw record. POST /api/scans lets the service's own app record scans of codes it read.
import type { Request, Response } from "express";
import { z } from "zod";
import { AppError } from "../core/errors";
import { logError } from "../core/log";
import { ids, QR_ID_PATTERN } from "../core/ids";
import { createRestApp, pageCsp } from "../http/rest";
import { endpoint, mountEndpoints } from "../http/endpoint";
import { readLink } from "../store/codes";
import { APP_SCAN_REPEAT_MS, countAppScan, writeInboxScan } from "../store/scans";
import { notCountedReason } from "../scans/classify";
import { preloadGeoDatabase } from "../scans/geo";
import { placeOfRequest } from "../scans/place";
import { NOT_FOUND_STYLE, notFoundPage } from "./pages";

preloadGeoDatabase();

function sendNotFound(res: Response): void {
  res
    .status(404)
    .set({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": pageCsp(NOT_FOUND_STYLE) })
    .send(notFoundPage());
}

async function handleRedirect(req: Request, res: Response): Promise<void> {
  const id = String(req.params.id ?? "");
  if (!QR_ID_PATTERN.test(id)) return sendNotFound(res);
  const at = new Date();
  const reason = notCountedReason(req.method, req.headers);
  const durable = reason
    ? undefined
    : placeOfRequest(req)
        .then((place) => writeInboxScan({ uniqueQRCodeID: id, at, place, source: "redirect" }))
        // The visitor still gets their destination; the lost scan is logged.
        .catch((e) => logError("scan record failed", e));
  const [link] = await Promise.all([readLink(id), durable]);
  if (!link) return sendNotFound(res); // its raw record is removed by the counter
  res.set({ "Cache-Control": "no-store", "X-Scan-Counted": reason ? `false; reason=${reason}` : "true", "Referrer-Policy": "no-referrer" });
  res.redirect(302, link.destinationUrl);
}

// The place of an app scan comes from the caller's address, like a redirect's, never from the body.
const AppScanSchema = z.object({ uniqueQRCodeID: ids.uniqueQRCodeID }).strict();

const appScanEndpoint = endpoint({
  method: "POST",
  path: "/api/scans",
  credential: "user",
  limit: "appScans",
  body: AppScanSchema,
  async handle({ req, res, user, body }) {
    const link = await readLink(body.uniqueQRCodeID);
    if (!link) throw new AppError("NOT_FOUND", "No code with this uniqueQRCodeID");
    const place = await placeOfRequest(req);
    const scan = { merchantId: link.merchantId, codeId: link.codeId, uniqueQRCodeID: body.uniqueQRCodeID, campaign: link.campaign ?? null, place, source: "app" as const };
    const counted = await countAppScan(user!.uid, scan);
    res.status(counted ? 201 : 200);
    return counted
      ? { ok: true, counted: true }
      : { ok: true, counted: false, reason: `already counted for this user in the last ${APP_SCAN_REPEAT_MS / 60_000} minutes` };
  },
});

export const redirectApp = createRestApp((app) => {
  app.get("/qr/:id", handleRedirect); // express answers HEAD through GET routes
  mountEndpoints(app, "app-scans", [appScanEndpoint]);
  app.use((_req: Request, res: Response) => sendNotFound(res));
});
