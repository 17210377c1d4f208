import { z } from "zod";
import { publicCode } from "../../codes/model";
import { listCodes } from "../../store/codes";
import { defineTool } from "../tool";
import { listLimit } from "../../core/validation";

export const qrListTool = defineTool({
  name: "svc.qr.list",
  description: "Lists the merchant's QR codes, newest first (limit 1 to 100, default 20).",
  scope: "merchant:read",
  input: z.object({ limit: listLimit.optional() }).strict(),
  async handler({ limit }, { caller }) {
    const codes = (await listCodes(caller.merchantId, limit ?? 20)).map(publicCode);
    return { count: codes.length, codes };
  },
});
