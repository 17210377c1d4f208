// Files drawn per request from a code's record (SVG, sized PNG, PDF, print hint), at stable URLs:
// /img/<kind>/<merchantId>/<codeId>.<ext>?token=<the code's image token>. The image token is the
// capability, as for the stored PNG.
import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { AppError } from "../core/errors";
import { ids } from "../core/ids";
import type { QrCode } from "../codes/model";
import { findCode } from "../store/codes";

/** Path params of a code file named `<codeId>.<ext>`. */
export function codeFileParams(ext: string) {
  return z
    .object({
      merchantId: ids.merchantId,
      file: z.string().regex(new RegExp(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\\.${ext}$`), `Must be <codeId>.${ext}`),
    })
    .strict();
}

export const tokenField = z.string().max(200).default("").describe("The code's image token, as in the URLs the API returns");

/** Documentation examples of a code file's URL (contract/openapi.ts): real ids have this shape. */
export const FILE_EXAMPLE = (ext: string) => ({ merchantId: "m_3f9a2c7d1e5b4a60", file: `Hk2Qm8ZpT1xVb4sLr9Ne.${ext}` });
export const TOKEN_EXAMPLE = "b8d1c2e3f4a5968778695a4b3c2d1e0f";

/** The code named by a file's params, if `token` is its image token; NOT_FOUND and FORBIDDEN otherwise. */
export async function codeForFile(params: { merchantId: string; file: string }, token: string): Promise<QrCode> {
  const codeId = params.file.replace(/\.[a-z]+$/, "");
  const code = await findCode(params.merchantId, { codeId }).catch(() => {
    throw new AppError("NOT_FOUND", "No such image");
  });
  const given = Buffer.from(token);
  const stored = Buffer.from(code.imageToken);
  if (given.length !== stored.length || !timingSafeEqual(given, stored)) throw new AppError("FORBIDDEN", "Invalid image token");
  return code;
}
