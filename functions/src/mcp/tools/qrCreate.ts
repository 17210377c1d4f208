import { z } from "zod";
import { newCodeShape } from "../../codes/fields";
import { publicCode } from "../../codes/model";
import { createCode } from "../../codes/service";
import { codeOutputShape, consoleUrl, consoleUrlField } from "../outputs";
import { CREATES_DRAFT, defineTool } from "../tool";
import { UI_RESOURCES } from "../ui/resources";
import { describeCode } from "./qrList";

export const qrCreateTool = defineTool({
  name: "svc.qr.create",
  title: "Create a QR code",
  description:
    "Creates a draft QR code with a hosted PNG (qrImageUrl). Static by default (encodes destinationUrl). dynamic: true encodes a re-pointable, tracked link; template soundSeal and any scanBeepSound force dynamic; boostFrame overrides template. design: brand colours, logo (base64 PNG/JPEG/WebP), module and eye styles, quiet zone or a saved preset; the image is decoded by two decoders at three sizes first, and a design that does not scan is refused with DESIGN_REFUSED (reason and suggestion in error.data).",
  scope: "qr:write",
  annotations: CREATES_DRAFT,
  input: z.object(newCodeShape).strict(),
  output: z.object({ ...codeOutputShape, consoleUrl: consoleUrlField }),
  ui: UI_RESOURCES.code.uri,
  async handler(args, { caller }) {
    const code = publicCode(await createCode(caller.merchantId, args));
    return { ...code, consoleUrl: consoleUrl(`code/${code.codeId}`) };
  },
  summarize: (r) => `Drafted ${describeCode(r)}. PNG: ${r.qrImageUrl} SVG: ${r.qrSvgUrl} Publish it in the console: ${r.consoleUrl}`,
});
