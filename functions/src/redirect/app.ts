// Dynamic links: GET /qr/<uniqueQRCodeID> reads the link document and, in parallel, makes the scan
// durable as a raw record (scanInbox); the 302 goes out only when both are done, so a scan whose redirect
// was answered survives the instance dying at that moment, and nothing runs after the response (with
// request-based CPU allocation, work after the response may be starved). The scanCounter trigger then
// counts the raw record. POST /api/scans lets the service's own app record scans of codes it read.
import { randomUUID } from "node:crypto";
import type { Request, Response } from "express";
import { z } from "zod";
import { AppError } from "../core/errors";
import { logError } from "../core/log";
import { REST_MAX_BODY_BYTES } from "../core/limits";
import { parseOrThrow } from "../core/validation";
import { captureRawBody, createRestApp, isJsonContentType, parseJsonBody } from "../http/rest";
import { verifyUser } from "../auth/caller";
import { QR_ID_PATTERN } from "../codes/ids";
import { readLink } from "../store/codes";
import { countScan, writeInboxScan } from "../store/scans";
import { notCountedReason } from "../scans/classify";
import { preloadGeoDatabase } from "../scans/geo";
import { placeOfRequest } from "../scans/place";
import { notFoundPage } from "./pages";

preloadGeoDatabase();

function sendNotFound(res: Response): void {
  res.status(404).set({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" }).send(notFoundPage());
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
const AppScanSchema = z
  .object({
    uniqueQRCodeID: z.string().regex(QR_ID_PATTERN, "Must be a 12-character uniqueQRCodeID"),
  })
  .strict();

async function handleAppScan(req: Request, res: Response): Promise<void> {
  await verifyUser({ authorization: req.headers.authorization, cookie: req.headers.cookie });
  if (!isJsonContentType(req)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send Content-Type: application/json");
  const input = parseOrThrow(AppScanSchema, parseJsonBody(req, REST_MAX_BODY_BYTES), "scan");
  const link = await readLink(input.uniqueQRCodeID);
  if (!link) throw new AppError("NOT_FOUND", "No code with this uniqueQRCodeID");
  const place = await placeOfRequest(req);
  const scan = { merchantId: link.merchantId, codeId: link.codeId, uniqueQRCodeID: input.uniqueQRCodeID, campaign: link.campaign ?? null, place, source: "app" as const };
  await countScan(randomUUID(), scan, { fromInbox: false });
  res.status(201).json({ ok: true, counted: true });
}

export const redirectApp = createRestApp((app) => {
  app.get("/qr/:id", handleRedirect); // express answers HEAD through GET routes
  app.post("/api/scans", captureRawBody(REST_MAX_BODY_BYTES), handleAppScan);
  app.use((_req: Request, res: Response) => sendNotFound(res));
});
