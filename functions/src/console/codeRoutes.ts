// Console routes for making and managing codes by hand: live preview of the exact PNG, create (and publish
// in the same step: a code the signed-in merchant makes here is theirs to release), one code, unpublish.
import type { Express, Request, Response } from "express";
import { AppError } from "../core/errors";
import { REST_MAX_BODY_BYTES } from "../core/limits";
import { parseOrThrow } from "../core/validation";
import { isJsonContentType, parseJsonBody } from "../http/rest";
import { callerForUser, verifyUser, type Caller } from "../auth/caller";
import { publicCode } from "../codes/model";
import { createCodes, dynamicLinkFor, renderCodePng } from "../codes/service";
import { findCode } from "../store/codes";
import { publishInBatch, unpublishCode } from "../store/codeStatus";
import { ConsoleNewCodeSchema, ConsolePreviewSchema } from "./schemas";
import { registerImportRoutes } from "./importRoutes";
import { registerSettingsRoutes } from "./settingsRoutes";

/** Same length and alphabet as a real id, so a dynamic preview has the final code's size and layout. */
const PREVIEW_ID = "000000000000";

const caller = async (req: Request): Promise<Caller> => callerForUser(await verifyUser({ authorization: req.headers.authorization, cookie: req.headers.cookie }));

function jsonBody(req: Request): unknown {
  if (!isJsonContentType(req)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send Content-Type: application/json");
  return parseJsonBody(req, REST_MAX_BODY_BYTES);
}

/** The spec's rules, as createCode applies them: a boost frame overrides the template; soundSeal and sounds force dynamic. */
function effective(input: { dynamic?: boolean; template?: "hexSeal" | "soundSeal"; boostFrame?: string; scanBeepSound?: string }) {
  const template = input.boostFrame ? null : (input.template ?? null);
  const dynamic = Boolean(input.dynamic) || template === "soundSeal" || input.scanBeepSound !== undefined;
  return { template, dynamic };
}

/** The console's routes for codes made by hand or from a spreadsheet, and the settings lists. */
export function registerCodeRoutes(app: Express): void {
  registerSettingsRoutes(app);
  registerImportRoutes(app);
  app.post("/api/console/codes/preview", async (req: Request, res: Response) => {
    await caller(req);
    const input = parseOrThrow(ConsolePreviewSchema, jsonBody(req), "preview request");
    const { template, dynamic } = effective(input);
    const png = await renderCodePng({
      dynamic,
      dynamicLink: dynamic ? dynamicLinkFor(PREVIEW_ID) : null,
      destinationUrl: input.destinationUrl,
      boostFrame: input.boostFrame ?? null,
      template,
    });
    res.set({ "Content-Type": "image/png", "X-Preview-Dynamic": String(dynamic) }).send(png);
  });

  app.post("/api/console/codes", async (req: Request, res: Response) => {
    const who = await caller(req);
    const { publish = true, ...input } = parseOrThrow(ConsoleNewCodeSchema, jsonBody(req), "new code");
    const now = new Date();
    const [code] = await createCodes(who.merchantId, [input], "console", (batch, codes) => {
      if (publish) for (const c of codes) publishInBatch(batch, who.merchantId, c.codeId, who.uid, now);
    });
    res.status(201).json(publicCode({ ...code, status: publish ? "published" : "draft" }));
  });

  app.get("/api/console/codes/:codeId", async (req: Request, res: Response) => {
    const who = await caller(req);
    res.json(publicCode(await findCode(who.merchantId, { codeId: String(req.params.codeId) })));
  });

  app.post("/api/console/codes/:codeId/unpublish", async (req: Request, res: Response) => {
    const who = await caller(req);
    res.json(await unpublishCode(who.merchantId, String(req.params.codeId)));
  });
}
