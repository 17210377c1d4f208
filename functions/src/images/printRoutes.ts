// Print files at stable token URLs, drawn from the code's record on each request (images/print.ts):
//   /img/pdf/<merchantId>/<codeId>.pdf?token=…[&size=<mm> | &distance=<m>]   (qrPdfUrl)
//   /img/png/<merchantId>/<codeId>.png?token=…&px=<pixels>
//   /img/print-hint/<merchantId>/<codeId>.json?token=…&distance=<m>
import { z } from "zod";
import { endpoint } from "../http/endpoint";
import { pdfUrlOf } from "../codes/model";
import { codeFileParams, codeForFile, tokenField } from "./codeFiles";
import { DEFAULT_PRINT_DISTANCE_M, DISTANCE_M_MAX, DISTANCE_M_MIN, PDF_MM_MAX, PDF_MM_MIN, PNG_PX_MAX, PNG_PX_MIN, printHint, printModel, renderPdf, renderSizedPng } from "./print";

const distance = z.coerce
  .number()
  .min(DISTANCE_M_MIN, `Must be at least ${DISTANCE_M_MIN} m`)
  .max(DISTANCE_M_MAX, `Must be at most ${DISTANCE_M_MAX} m`)
  .describe("Scanning distance in metres");

const PdfQuery = z
  .object({
    token: tokenField,
    size: z.coerce.number().min(PDF_MM_MIN, `Must be at least ${PDF_MM_MIN} mm`).max(PDF_MM_MAX, `Must be at most ${PDF_MM_MAX} mm`).optional(),
    distance: distance.optional(),
  })
  .strict()
  .refine((q) => q.size === undefined || q.distance === undefined, { message: "Give size or distance, not both", path: ["size"] });

const PngQuery = z
  .object({ token: tokenField, px: z.coerce.number().int("Must be whole pixels").min(PNG_PX_MIN, `Must be at least ${PNG_PX_MIN}`).max(PNG_PX_MAX, `Must be at most ${PNG_PX_MAX}`) })
  .strict();

const HintQuery = z.object({ token: tokenField, distance }).strict();

const FILE_HEADERS = { "Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff" };

export const printEndpoints = [
  endpoint({
    method: "GET",
    path: "/img/pdf/:merchantId/:file",
    credential: "none",
    params: codeFileParams("pdf"),
    query: PdfQuery,
    async handle({ res, params, query }) {
      const code = await codeForFile(params, query.token);
      const sideMm = query.size ?? printHint(await printModel(code), query.distance ?? DEFAULT_PRINT_DISTANCE_M).sideMm;
      const pdf = await renderPdf(code, sideMm, code.title);
      res.set({ ...FILE_HEADERS, "Content-Type": "application/pdf", "Content-Disposition": `inline; filename="${code.codeId}-${sideMm}mm.pdf"`, "X-Print-Side-Mm": String(sideMm) }).send(pdf);
    },
  }),
  endpoint({
    method: "GET",
    path: "/img/png/:merchantId/:file",
    credential: "none",
    params: codeFileParams("png"),
    query: PngQuery,
    async handle({ res, params, query }) {
      const code = await codeForFile(params, query.token);
      const png = await renderSizedPng(code, query.px);
      res.set({ ...FILE_HEADERS, "Content-Type": "image/png", "Content-Disposition": `inline; filename="${code.codeId}-${query.px}px.png"` }).send(png);
    },
  }),
  endpoint({
    method: "GET",
    path: "/img/print-hint/:merchantId/:file",
    credential: "none",
    params: codeFileParams("json"),
    query: HintQuery,
    async handle({ params, query }) {
      const code = await codeForFile(params, query.token);
      const hint = printHint(await printModel(code), query.distance);
      return { ...hint, pdfUrl: `${pdfUrlOf(code)}&size=${hint.sideMm}` };
    },
  }),
];
