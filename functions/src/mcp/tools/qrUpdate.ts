import { z } from "zod";
import { fields, SCAN_BEEP_SOUNDS } from "../../codes/fields";
import { publicCode } from "../../codes/model";
import { updateCode } from "../../codes/service";
import { codeOutput } from "../outputs";
import { defineTool } from "../tool";
import { describeCode } from "./qrList";

export const qrUpdateTool = defineTool({
  name: "svc.qr.update",
  title: "Update a QR code",
  description:
    "Edits a QR code named by codeId or uniqueQRCodeID (give one, or both for the same code). A dynamic code redirects to a new destinationUrl on the very next scan; a static code's image is re-rendered at the same qrImageUrl. scanBeepSound none removes the sound. design replaces the brand design (null: plain); a design that does not scan is refused with DESIGN_REFUSED. Returns the updated code.",
  scope: "qr:write",
  // Re-pointing and redesigning overwrite what live scans and printed images use; the same edit twice is one edit.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z
    .object({
      codeId: fields.codeId.optional(),
      uniqueQRCodeID: fields.uniqueQRCodeID.optional(),
      destinationUrl: fields.destinationUrl.optional(),
      scanBeepSound: z.enum([...SCAN_BEEP_SOUNDS, "none"]).optional().describe("New scan sound, or none to remove it"),
      title: fields.title.optional(),
      design: fields.design.nullable().optional().describe("New brand design (replaces the whole design; the image is re-rendered at the same qrImageUrl), or null for the plain code"),
    })
    .strict(),
  output: codeOutput,
  async handler({ codeId, uniqueQRCodeID, ...changes }, { caller }) {
    return publicCode(await updateCode(caller.merchantId, { codeId, uniqueQRCodeID }, changes));
  },
  summarize: (r) => `Updated ${describeCode(r)}.`,
});
