// Print files at stable token URLs, drawn from the code's record on each request (codes/print.ts):
//   /img/pdf/<merchantId>/<codeId>.pdf?token=…[&size=<mm> | &distance=<m>]   (qrPdfUrl)
//   /img/png/<merchantId>/<codeId>.png?token=…&px=<pixels>
//   /img/print-hint/<merchantId>/<codeId>.json?token=…&distance=<m>
import { z } from "zod";
import { endpoint } from "../http/endpoint";
import { pdfUrlOf } from "../codes/model";
import { codeFileParams, codeForFile, FILE_EXAMPLE, TOKEN_EXAMPLE, tokenField } from "./codeFiles";
import { DEFAULT_PRINT_DISTANCE_M, DISTANCE_M_MAX, DISTANCE_M_MIN, nearestPngPx, PDF_MM_MAX, PDF_MM_MIN, PNG_PX_MAX, PNG_PX_MIN, PNG_PX_SIZES, printHint, printModel, renderPdf, renderSizedPng } from "../codes/print";
import { withRenderSlot } from "./renderGate";

const distance = z.coerce
  .number()
  .min(DISTANCE_M_MIN, `Must be at least ${DISTANCE_M_MIN} m`)
  .max(DISTANCE_M_MAX, `Must be at most ${DISTANCE_M_MAX} m`)
  .describe("Scanning distance in metres");

const PdfQuery = z
  .object({
    token: tokenField,
    size: z.coerce.number().min(PDF_MM_MIN, `Must be at least ${PDF_MM_MIN} mm`).max(PDF_MM_MAX, `Must be at most ${PDF_MM_MAX} mm`).optional().describe("Whole millimetres; a fraction is redirected to the nearest whole size"),
    distance: distance.optional(),
  })
  .strict()
  .refine((q) => q.size === undefined || q.distance === undefined, { message: "Give size or distance, not both", path: ["size"] });

const PngQuery = z
  .object({
    token: tokenField,
    px: z.coerce
      .number()
      .min(PNG_PX_MIN, `Must be at least ${PNG_PX_MIN}`)
      .max(PNG_PX_MAX, `Must be at most ${PNG_PX_MAX}`)
      .describe(`One of ${PNG_PX_SIZES.join(", ")}; another value in range is redirected to the nearest`),
  })
  .strict();

/** The same request with one query parameter changed, as a path the front end resolves (for a 308). */
function withQuery(req: { path: string; query: unknown }, name: string, value: number): string {
  const query = new URLSearchParams(req.query as Record<string, string>);
  query.set(name, String(value));
  return `${req.path}?${query.toString()}`;
}

const HintQuery = z.object({ token: tokenField, distance }).strict();

export const PrintHintSchema = z
  .object({
    distanceM: z.number().describe("The scanning distance asked for, in metres"),
    sideMm: z.number().int().describe("The side of the smallest print that scans from there, in mm"),
    symbolMm: z.number().describe("The side of the code itself (without its margin), in mm"),
    moduleMm: z.number().describe("The side of one module, in mm"),
    modules: z.number().int().describe("Modules per side"),
    rule: z.string().describe("The rule of thumb the size comes from"),
    pdfUrl: z.string().url().describe("The PDF at that size"),
  })
  .meta({ title: "PrintHint" });

const FILE_ERRORS = ["NOT_FOUND", "FORBIDDEN"] as const;
/** A drawn file may also be refused for a moment while the instance is busy drawing (renderGate.ts). */
const RENDER_ERRORS = [...FILE_ERRORS, "UNAVAILABLE"] as const;

const FILE_HEADERS = { "Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff" };

export const printEndpoints = [
  endpoint({
    method: "GET",
    path: "/img/pdf/:merchantId/:file",
    summary: "A code as a print-ready PDF",
    credential: "none",
    addressLimit: "imageFiles",
    doc: {
      operationId: "getCodePdf",
      description:
        `One page, the code at \`size\` mm (${PDF_MM_MIN} to ${PDF_MM_MAX}), or at the smallest size that scans from \`distance\` metres ` +
        `(${DEFAULT_PRINT_DISTANCE_M} m when neither is given). The side used is in X-Print-Side-Mm. The URL, with its token, is the code's \`pdfUrl\`.`,
      binary: "application/pdf",
      errors: RENDER_ERRORS,
      responseHeaders: { "X-Print-Side-Mm": "The printed side in millimetres" },
      example: { params: FILE_EXAMPLE("pdf"), query: { token: TOKEN_EXAMPLE, size: 40 } },
    },
    params: codeFileParams("pdf"),
    query: PdfQuery,
    async handle({ req, res, params, query }) {
      if (query.size !== undefined && !Number.isInteger(query.size)) return res.redirect(308, withQuery(req, "size", Math.round(query.size)));
      const pdf = await withRenderSlot(res.set.bind(res), async () => {
        const code = await codeForFile(params, query.token);
        const sideMm = query.size ?? printHint(await printModel(code), query.distance ?? DEFAULT_PRINT_DISTANCE_M).sideMm;
        return { code, sideMm, bytes: await renderPdf(code, sideMm, code.title) };
      });
      res
        .set({ ...FILE_HEADERS, "Content-Type": "application/pdf", "Content-Disposition": `inline; filename="${pdf.code.codeId}-${pdf.sideMm}mm.pdf"`, "X-Print-Side-Mm": String(pdf.sideMm) })
        .send(pdf.bytes);
    },
  }),
  endpoint({
    method: "GET",
    path: "/img/png/:merchantId/:file",
    summary: "A code as a PNG of a chosen size",
    credential: "none",
    addressLimit: "imageFiles",
    doc: {
      operationId: "getCodePng",
      description: `The code drawn \`px\` pixels a side (${PNG_PX_SIZES.join(", ")}; another value from ${PNG_PX_MIN} to ${PNG_PX_MAX} is redirected (308) to the nearest); designed codes are decoded at that size before they are returned. 503 with Retry-After when the instance is drawing as many files as it safely can.`,
      binary: "image/png",
      errors: RENDER_ERRORS,
      example: { params: FILE_EXAMPLE("png"), query: { token: TOKEN_EXAMPLE, px: 1024 } },
    },
    params: codeFileParams("png"),
    query: PngQuery,
    async handle({ req, res, params, query }) {
      if (!PNG_PX_SIZES.includes(query.px)) return res.redirect(308, withQuery(req, "px", nearestPngPx(query.px)));
      const { code, png } = await withRenderSlot(res.set.bind(res), async () => {
        const code = await codeForFile(params, query.token);
        return { code, png: await renderSizedPng(code, query.px) };
      });
      res.set({ ...FILE_HEADERS, "Content-Type": "image/png", "Content-Disposition": `inline; filename="${code.codeId}-${query.px}px.png"` }).send(png);
    },
  }),
  endpoint({
    method: "GET",
    path: "/img/print-hint/:merchantId/:file",
    summary: "The smallest print of a code that scans from a distance",
    credential: "none",
    addressLimit: "imageFiles",
    response: PrintHintSchema,
    doc: {
      operationId: "getPrintHint",
      description: "How large to print the code so that it scans from `distance` metres, and the PDF at that size.",
      errors: FILE_ERRORS,
      example: {
        params: FILE_EXAMPLE("json"),
        query: { token: TOKEN_EXAMPLE, distance: 2 },
        response: {
          distanceM: 2,
          sideMm: 29,
          symbolMm: 23.81,
          moduleMm: 0.95,
          modules: 25,
          rule: "Rule of thumb: the code (without its margin) is at least distance / 10 for a 25-module code.",
          pdfUrl: "https://svc.example/img/pdf/m_3f9a2c7d1e5b4a60/Hk2Qm8ZpT1xVb4sLr9Ne.pdf?token=b8d1c2e3f4a5968778695a4b3c2d1e0f&size=29",
        },
      },
    },
    params: codeFileParams("json"),
    query: HintQuery,
    async handle({ params, query }) {
      const code = await codeForFile(params, query.token);
      const hint = printHint(await printModel(code), query.distance);
      return { ...hint, pdfUrl: `${pdfUrlOf(code)}&size=${hint.sideMm}` };
    },
  }),
];
