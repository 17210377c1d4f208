// Dynamic links: GET /qr/<uniqueQRCodeID> answers 302 to the code's current destination after one
// Firestore read, then records the scan. The scan write happens after the response is sent, so it adds
// no round trip to the redirect; the handler still awaits it, and the function is meant to run with CPU
// always allocated (docs/deploy.md) so the write is not throttled once the response is out.
// POST /api/scans lets the service's own app record scans of codes it read (Firebase ID token).
import type { Request, Response } from "express";
import { z } from "zod";
import { AppError } from "../core/errors";
import { db } from "../core/firebase";
import { logError } from "../core/log";
import { REST_MAX_BODY_BYTES } from "../core/limits";
import { parseOrThrow } from "../core/validation";
import { captureRawBody, createRestApp, isJsonContentType, parseJsonBody } from "../http/rest";
import { verifyUser } from "../auth/caller";
import { QR_ID_PATTERN } from "../codes/ids";
import { COLLECTIONS } from "../store/collections";
import { recordScan } from "../store/scans";
import { notCountedReason, scanPlace, type ScanPlace } from "../scans/classify";
import { notFoundPage } from "./pages";

interface Link {
  merchantId: string;
  codeId: string;
  destinationUrl: string;
  campaign: string | null;
}

async function readLink(id: string): Promise<Link | undefined> {
  if (!QR_ID_PATTERN.test(id)) return undefined;
  const snap = await db().collection(COLLECTIONS.links).doc(id).get();
  return snap.exists ? (snap.data() as Link) : undefined;
}

function scanOf(link: Link, id: string, place: ScanPlace, source: "redirect" | "app") {
  return { merchantId: link.merchantId, codeId: link.codeId, uniqueQRCodeID: id, campaign: link.campaign ?? null, place, source };
}

async function handleRedirect(req: Request, res: Response): Promise<void> {
  const id = String(req.params.id ?? "");
  const link = await readLink(id);
  if (!link) {
    res.status(404).set({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" }).send(notFoundPage());
    return;
  }
  const reason = notCountedReason(req.method, req.headers);
  res.set({ "Cache-Control": "no-store", "X-Scan-Counted": reason ? `false; reason=${reason}` : "true", "Referrer-Policy": "no-referrer" });
  res.redirect(302, link.destinationUrl);
  if (!reason) {
    await recordScan(scanOf(link, id, scanPlace(req.headers), "redirect")).catch((e) => logError("scan record failed", e));
  }
}

const AppScanSchema = z
  .object({
    uniqueQRCodeID: z.string().regex(QR_ID_PATTERN, "Must be a 12-character uniqueQRCodeID"),
    city: z.string().trim().min(1).max(80).optional(),
    state: z.string().trim().min(1).max(80).optional(),
  })
  .strict();

async function handleAppScan(req: Request, res: Response): Promise<void> {
  await verifyUser({ authorization: req.headers.authorization, cookie: req.headers.cookie });
  if (!isJsonContentType(req)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send Content-Type: application/json");
  const input = parseOrThrow(AppScanSchema, parseJsonBody(req, REST_MAX_BODY_BYTES), "scan");
  const link = await readLink(input.uniqueQRCodeID);
  if (!link) throw new AppError("NOT_FOUND", "No code with this uniqueQRCodeID");
  const fromHeaders = scanPlace(req.headers);
  const place = { city: input.city ?? fromHeaders.city, state: input.state ?? fromHeaders.state };
  await recordScan(scanOf(link, input.uniqueQRCodeID, place, "app"));
  res.status(201).json({ ok: true, counted: true });
}

export const redirectApp = createRestApp((app) => {
  app.get("/qr/:id", handleRedirect); // express answers HEAD through GET routes
  app.post("/api/scans", captureRawBody(REST_MAX_BODY_BYTES), handleAppScan);
  app.use((_req: Request, res: Response) => {
    res.status(404).set({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" }).send(notFoundPage());
  });
});
