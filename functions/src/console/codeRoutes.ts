// Console routes for making and managing codes by hand: live preview of the exact PNG, create (and publish
// in the same step: a code the signed-in merchant makes here is theirs to release), one code, unpublish.
import { z } from "zod";
import { ids } from "../core/ids";
import { endpoint, type Endpoint } from "../http/endpoint";
import { publicCode } from "../codes/model";
import { createCodes, dynamicLinkFor, effectiveLook, renderCodePng } from "../codes/service";
import { findCode } from "../store/codes";
import { publishInBatch, unpublishCode } from "../store/codeStatus";
import { ConsoleNewCodeSchema, ConsolePreviewSchema } from "./schemas";
import { importEndpoint } from "./importRoutes";
import { settingsEndpoints } from "./settingsRoutes";

/** Same length and alphabet as a real id, so a dynamic preview has the final code's size and layout. */
const PREVIEW_ID = "000000000000";

const CodeParams = z.object({ codeId: ids.codeId }).strict();

/** The console's routes for codes made by hand or from a spreadsheet, and the settings lists. */
export const codeEndpoints: Endpoint[] = [
  ...settingsEndpoints,
  importEndpoint,
  endpoint({
    method: "POST",
    path: "/api/console/codes/preview",
    credential: "member",
    ownAddressOnly: true,
    limit: "previews",
    body: ConsolePreviewSchema,
    async handle({ res, body: input }) {
      const { template, dynamic } = effectiveLook(input);
      const png = await renderCodePng({
        dynamic,
        dynamicLink: dynamic ? dynamicLinkFor(PREVIEW_ID) : null,
        destinationUrl: input.destinationUrl,
        boostFrame: input.boostFrame ?? null,
        template,
      });
      res.set({ "Content-Type": "image/png", "X-Preview-Dynamic": String(dynamic) }).send(png);
    },
  }),
  endpoint({
    method: "POST",
    path: "/api/console/codes",
    credential: "member",
    ownAddressOnly: true,
    limit: "consoleWrites",
    body: ConsoleNewCodeSchema,
    async handle({ res, caller, body }) {
      const who = caller!;
      const { publish = true, ...input } = body;
      const now = new Date();
      const [code] = await createCodes(who.merchantId, [input], "console", (batch, codes) => {
        if (publish) for (const c of codes) publishInBatch(batch, who.merchantId, c.codeId, who.uid, now);
      });
      res.status(201);
      return publicCode({ ...code, status: publish ? "published" : "draft" });
    },
  }),
  endpoint({
    method: "GET",
    path: "/api/console/codes/:codeId",
    credential: "member",
    ownAddressOnly: true,
    standing: "consoleWrites",
    params: CodeParams,
    async handle({ caller, params }) {
      return publicCode(await findCode(caller!.merchantId, { codeId: params.codeId }));
    },
  }),
  endpoint({
    method: "POST",
    path: "/api/console/codes/:codeId/unpublish",
    credential: "member",
    ownAddressOnly: true,
    limit: "consoleWrites",
    params: CodeParams,
    async handle({ caller, params }) {
      return unpublishCode(caller!.merchantId, params.codeId);
    },
  }),
];
