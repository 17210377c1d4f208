import { z } from "zod";
import { newCodeShape } from "../../codes/fields";
import { publicCode } from "../../codes/model";
import { createCode } from "../../codes/service";
import { defineTool } from "../tool";

export const qrCreateTool = defineTool({
  name: "svc.qr.create",
  description:
    "Creates a draft QR code with a hosted PNG (qrImageUrl). Static by default (encodes destinationUrl). dynamic: true encodes a re-pointable, tracked link; template soundSeal and any scanBeepSound force dynamic; boostFrame overrides template. design: brand colours, logo (base64 PNG/JPEG/WebP), module and eye styles, quiet zone or a saved preset; the image is decoded by two decoders at three sizes first, and a design that does not scan is refused with DESIGN_REFUSED (reason and suggestion in error.data).",
  scope: "qr:write",
  input: z.object(newCodeShape).strict(),
  async handler(args, { caller }) {
    return publicCode(await createCode(caller.merchantId, args));
  },
});
