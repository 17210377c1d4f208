import { z } from "zod";
import { publicCode } from "../../codes/model";
import { listCodes } from "../../store/codes";
import { defineTool, READ_ONLY } from "../tool";
import { listLimit } from "../../core/validation";
import { codeOutput, count } from "../outputs";

/** One code in a sentence, for summaries. */
export function describeCode(c: z.infer<typeof codeOutput>): string {
  return `${c.status} ${c.dynamic ? "dynamic" : "static"} code "${c.title}" (${c.codeId}) to ${c.destinationUrl}${c.dynamicLink ? ` via ${c.dynamicLink}` : ""}`;
}

export const qrListTool = defineTool({
  name: "svc.qr.list",
  title: "List QR codes",
  description: "Lists the merchant's QR codes, newest first (limit 1 to 100, default 20).",
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: z.object({ limit: listLimit.optional() }).strict(),
  output: z.object({ count: z.number().int(), codes: z.array(codeOutput) }),
  async handler({ limit }, { caller }) {
    const codes = (await listCodes(caller.merchantId, limit ?? 20)).map(publicCode);
    return { count: codes.length, codes };
  },
  summarize: (r) =>
    `${count(r.count, "code")}, newest first${r.count ? ":\n" + r.codes.map((c) => `- ${describeCode(c)}`).join("\n") : "."}`,
});
