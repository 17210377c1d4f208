import { z } from "zod";
import { publicCode } from "../../codes/model";
import { listCodePage } from "../../codes/directory";
import { defineTool, READ_ONLY } from "../tool";
import { codeOutput, count, moreSentence, pageInputShape, pageOutputShape, summaryLines } from "../outputs";
import { boundedPage } from "../resultBudget";

/** One code in a sentence, for summaries. */
export function describeCode(c: z.infer<typeof codeOutput>): string {
  return `${c.status} ${c.dynamic ? "dynamic" : "static"} code "${c.title}" (${c.codeId}) to ${c.destinationUrl}${c.dynamicLink ? ` via ${c.dynamicLink}` : ""}`;
}

export const qrListTool = defineTool({
  name: "svc.qr.list",
  title: "List QR codes",
  description: "Lists the workspace's QR codes, newest first.",
  scope: "merchant:read",
  annotations: READ_ONLY,
  outputDescribedBy: "svc.qr.create",
  input: z
    .object(pageInputShape)
    .strict(),
  output: z.object({
    count: z.number().int(),
    codes: z.array(codeOutput),
    ...pageOutputShape,
  }),
  async handler({ limit, cursor }, { caller }) {
    return boundedPage(
      async (n) => {
        const page = await listCodePage(caller.merchantId, { sort: "created", limit: n, cursor });
        const codes = page.codes.map((c) => publicCode(c.code));
        return { count: codes.length, codes, nextCursor: page.nextCursor };
      },
      (page) => page.codes,
      limit ?? 20,
    );
  },
  summarize: (r) => `${count(r.count, "code")}, newest first${r.count ? ":\n" + summaryLines(r.codes, describeCode) : "."}${moreSentence(r)}`,
});
