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

// A domain id is listed by type alone (the default list's byte budget); svc.tools.search gives its rules.
const domainIdListed = { type: ["string", "null"] };
listedAs.add(fields.domainId, { json: domainIdListed });

export const qrCreateTool = defineTool({
  name: "svc.qr.create",
  title: "Create a QR code",
  description:
    "Creates a draft QR code (hosted PNG, SVG, PDF); static unless dynamic. A design that does not scan: DESIGN_REFUSED (reason, suggestion in error.data).",
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
