// Print-ready SVGs at stable URLs (svgUrlOf in codes/model): /img/svg/<merchantId>/<codeId>.svg?token=<the code's image token>.
// Drawn from the code's current record on each request, so a static code's SVG follows a new destination
// exactly as its PNG does, and nothing extra is stored.
import { z } from "zod";
import { endpoint } from "../http/endpoint";
import { renderCodeSvg } from "../codes/service";
import { withRenderSlot } from "./renderGate";
import { codeFileParams, codeForFile, FILE_EXAMPLE, TOKEN_EXAMPLE, tokenField } from "./codeFiles";

export const svgEndpoint = endpoint({
  method: "GET",
  path: "/img/svg/:merchantId/:file",
  summary: "A code as a print-ready SVG",
  credential: "none",
  addressLimit: "imageFiles",
  params: codeFileParams("svg"),
  query: z.object({ token: tokenField }).strict(),
  doc: {
    operationId: "getCodeSvg",
    description: "Drawn from the code's current record on each request (a static code's SVG follows a new destination). The URL, with its token, is the code's `svgUrl`.",
    binary: "image/svg+xml",
    errors: ["NOT_FOUND", "FORBIDDEN", "UNAVAILABLE"],
    example: { params: FILE_EXAMPLE("svg"), query: { token: TOKEN_EXAMPLE } },
  },
  async handle({ res, params, query }) {
    const { code, svg } = await withRenderSlot(res.set.bind(res), async () => {
      const code = await codeForFile(params, query.token);
      return { code, svg: await renderCodeSvg(code) };
    });
    res
      .set({
        "Content-Type": "image/svg+xml",
        "Cache-Control": "public, max-age=300",
        "Content-Disposition": `inline; filename="${code.codeId}.svg"`,
        // An SVG opened directly is a document: no scripts, no external loads.
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      })
      .send(svg);
  },
});
