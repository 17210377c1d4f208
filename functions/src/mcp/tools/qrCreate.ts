import { z } from "zod";
import { fields, newCodeShape } from "../../codes/fields";
import { publicCode } from "../../codes/model";
import { createCode } from "../../codes/service";
import { codeOutputShape, consoleUrl, consoleUrlField } from "../outputs";
import { CREATES_DRAFT, defineTool } from "../tool";
import { listedAs, namesAndTypes } from "../listingSchema";
import { UI_RESOURCES } from "../ui/resources";
import { describeCode } from "./qrList";

// Brand designs are a toolset of their own: the default list names the fields and their types,
// svc.tools.search gives their values and defaults.
listedAs.add(fields.design, { json: { ...namesAndTypes(fields.design), description: "Brand design; values and defaults: svc.tools.search \"design\"" } });

export const qrCreateTool = defineTool({
  name: "svc.qr.create",
  title: "Create a QR code",
  description:
    "Creates a draft QR code with hosted PNG, SVG and PDF. Static (encodes destinationUrl) unless dynamic. A design that does not scan is refused with DESIGN_REFUSED (reason and suggestion in error.data).",
  scope: "qr:write",
  annotations: CREATES_DRAFT,
  input: z.object(newCodeShape).strict(),
  output: z.object({ ...codeOutputShape, consoleUrl: consoleUrlField }),
  ui: UI_RESOURCES.code.uri,
  async handler(args, { caller }) {
    const code = publicCode(await createCode(caller.merchantId, args));
    return { ...code, consoleUrl: consoleUrl(`code/${code.codeId}`) };
  },
  summarize: (r) => `Created ${describeCode(r)}. PNG: ${r.qrImageUrl} SVG: ${r.qrSvgUrl} Publish it in the console: ${r.consoleUrl}`,
});
