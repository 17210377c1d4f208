import { z } from "zod";
import { fields, SCAN_BEEP_SOUNDS } from "../../codes/fields";
import { publicCode } from "../../codes/model";
import { updateCode } from "../../codes/service";
import { codeOutput } from "../outputs";
import { defineTool } from "../tool";
import { listedAs, namesAndTypes } from "../listingSchema";
import { describeCode } from "./qrList";

const designChange = fields.design.nullable().optional().describe("New brand design (replaces the whole design; the image is re-rendered at the same qrImageUrl), or null for the plain code");
// tools/list names the shape once, in svc.qr.create, which is always listed beside this tool.
listedAs.add(designChange, { json: { ...namesAndTypes(fields.design), type: ["object", "null"], description: "Replaces the whole design, as in svc.qr.create; null: the plain code" } });

export const qrUpdateTool = defineTool({
  name: "svc.qr.update",
  title: "Update a QR code",
  description:
    "Changes a code: a dynamic one follows a new destinationUrl from the next scan; a static one is re-rendered at the same URLs.",
  scope: "qr:write",
  // Re-pointing and redesigning overwrite what live scans and printed images use; the same edit twice is one edit.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  outputDescribedBy: "svc.qr.create",
  input: z
    .object({
      codeId: fields.codeId.optional(),
      uniqueQRCodeID: fields.uniqueQRCodeID.optional(),
      destinationUrl: fields.destinationUrl.optional(),
      scanBeepSound: z.enum([...SCAN_BEEP_SOUNDS, "none"]).optional().describe("New scan sound, or none to remove it"),
      title: fields.title.optional(),
      design: designChange,
      domainId: fields.domainId.optional(),
    })
    .strict(),
  output: codeOutput,
  async handler({ codeId, uniqueQRCodeID, ...changes }, { caller }) {
    return publicCode(await updateCode(caller.merchantId, { codeId, uniqueQRCodeID }, changes));
  },
  summarize: (r) => `Updated ${describeCode(r)}.`,
});
