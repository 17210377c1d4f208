// Spreadsheet import from the console, one chunk of up to 50 rows per call, with the bulk endpoint's rules:
// all or nothing per chunk, and an Idempotency-Key (one per chunk) claimed before any code is written, so
// a retried chunk answers with the codes it already made instead of making them twice.
import { AppError } from "../core/errors";
import { consoleRoute } from "./route";
import { idempotencyKeyOf } from "../bulk/app";
import { createCodesOnce } from "../bulk/createOnce";
import { publicCode, type PublicCode, type QrCode } from "../codes/model";
import { requestHashOf } from "../store/idempotency";
import { publishOnCreate } from "../codes/publish";
import { ConsoleImportSchema, ImportedSchema } from "./schemas";
import { DESIGN_MAX_BODY_BYTES } from "../codes/fields";

interface ImportResponse {
  ok: true;
  count: number;
  codes: PublicCode[];
}

export const importRoute = consoleRoute({
  method: "POST",
  path: "/api/console/codes/import",
  summary: "Import one chunk of spreadsheet rows as codes",
  credential: "member",
  response: ImportedSchema,
  limit: "bulk",
  maxBodyBytes: DESIGN_MAX_BODY_BYTES,
  body: ConsoleImportSchema,
  async handle({ req, res, caller, body }) {
    const who = caller;
    const { rows, publish = true, design } = body;
    const key = idempotencyKeyOf(req);
    if (!key) throw new AppError("VALIDATION_FAILED", "Send an Idempotency-Key header, one per chunk, so a retry never creates codes twice");
    const publishing = publishOnCreate(who.merchantId, who.uid);
    // Namespaced so the same key on the bulk endpoint (a different body shape) is a conflict, never a replay.
    const hash = requestHashOf(design ? { consoleImport: rows, publish, design } : { consoleImport: rows, publish });
    const inputs = design ? rows.map((row) => ({ ...row, design })) : rows;
    let made: QrCode[] = [];
    const { response, replayed } = await createCodesOnce<ImportResponse>(who.merchantId, key, hash, inputs, "bulk", (batch, codes) => {
      if (publish) publishing.write(batch, codes);
      made = codes;
      return { ok: true, count: codes.length, codes: codes.map((c) => publicCode({ ...c, status: publish ? "published" : "draft" })) };
    });
    if (replayed) {
      res.set("Idempotent-Replayed", "true");
      return response;
    }
    if (publish) await publishing.announce(made);
    res.status(201);
    return response;
  },
});
