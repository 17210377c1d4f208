// Print-ready SVGs at stable URLs (svgUrlOf in codes/model): /img/svg/<merchantId>/<codeId>.svg?token=<the code's image token>.
// Drawn from the code's current record on each request, so a static code's SVG follows a new destination
// exactly as its PNG does, and nothing extra is stored. The image token is the capability, as for the PNG.
import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { AppError } from "../core/errors";
import { ids } from "../core/ids";
import { endpoint } from "../http/endpoint";
import { renderCodeSvg } from "../codes/service";
import { findCode } from "../store/codes";

const SvgParams = z
  .object({
    merchantId: ids.merchantId,
    file: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\.svg$/, "Must be <codeId>.svg"),
  })
  .strict();
const SvgQuery = z.object({ token: z.string().max(200).default("") }).strict();

export const svgEndpoint = endpoint({
  method: "GET",
  path: "/img/svg/:merchantId/:file",
  credential: "none",
  params: SvgParams,
  query: SvgQuery,
  async handle({ res, params, query }) {
    const codeId = params.file.replace(/\.svg$/, "");
    const code = await findCode(params.merchantId, { codeId }).catch(() => {
      throw new AppError("NOT_FOUND", "No such image");
    });
    const given = Buffer.from(query.token);
    const stored = Buffer.from(code.imageToken);
    if (given.length !== stored.length || !timingSafeEqual(given, stored)) throw new AppError("FORBIDDEN", "Invalid image token");
    const svg = await renderCodeSvg(code);
    res
      .set({
        "Content-Type": "image/svg+xml",
        "Cache-Control": "public, max-age=300",
        "Content-Disposition": `inline; filename="${codeId}.svg"`,
        // An SVG opened directly is a document: no scripts, no external loads.
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      })
      .send(svg);
  },
});
