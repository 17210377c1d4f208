// Print-ready SVGs at stable URLs (svgUrlOf in codes/model): /img/svg/<merchantId>/<codeId>.svg?token=<the code's image token>.
// Drawn from the code's current record on each request, so a static code's SVG follows a new destination
// exactly as its PNG does, and nothing extra is stored. The image token is the capability, as for the PNG.
import { timingSafeEqual } from "node:crypto";
import type { Express, Request, Response } from "express";
import { AppError } from "../core/errors";
import { encodedPayload } from "../codes/service";
import { findCode } from "../store/codes";
import { renderSvg } from "../qr/svg";

const ID = /^[A-Za-z0-9_-]{1,128}$/;

export function registerSvgRoute(app: Express): void {
  app.get("/img/svg/:merchantId/:file", async (req: Request, res: Response) => {
    const { merchantId, file } = req.params as { merchantId: string; file: string };
    const codeId = file.replace(/\.svg$/, "");
    if (!file.endsWith(".svg") || !ID.test(merchantId) || !ID.test(codeId)) throw new AppError("NOT_FOUND", "No such image");
    const code = await findCode(merchantId, { codeId }).catch(() => {
      throw new AppError("NOT_FOUND", "No such image");
    });
    const given = Buffer.from(typeof req.query.token === "string" ? req.query.token : "");
    const stored = Buffer.from(code.imageToken);
    if (given.length !== stored.length || !timingSafeEqual(given, stored)) throw new AppError("FORBIDDEN", "Invalid image token");
    const svg = renderSvg(encodedPayload(code), code.boostFrame ?? code.template ?? null);
    res
      .set({
        "Content-Type": "image/svg+xml",
        "Cache-Control": "public, max-age=300",
        "Content-Disposition": `inline; filename="${codeId}.svg"`,
        // An SVG opened directly is a document: no scripts, no external loads.
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
      })
      .send(svg);
  });
}
