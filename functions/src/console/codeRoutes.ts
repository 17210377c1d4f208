// Console routes for making and managing codes by hand: live preview of the exact PNG, create (and publish
// in the same step: a code the signed-in merchant makes here is theirs to release), one code, unpublish.
import { z } from "zod";
import { ids } from "../core/ids";
import { publicCode } from "../codes/model";
import { changedDesign, createCodes, dynamicLinkFor, renderCodePng } from "../codes/service";
import { domainChoices } from "../codes/domains";
import { effectiveLook } from "../codes/look";
import { findCode } from "../store/codes";
import { resolveDesign } from "../designs/design";
import { publishOnCreate, unpublishCode } from "../codes/publish";
import {
  BrandPresetListSchema,
  BrandPresetParams,
  BrandPresetSavedSchema,
  BrandPresetSchema,
  CodeDesignPreviewSchema,
  ConsoleCodeSchema,
  ConsoleNewCodeSchema,
  ConsolePreviewSchema,
  DoneSchema,
  OwnCodeSchema,
  UnpublishedSchema,
} from "./schemas";
import { DESIGN_MAX_BODY_BYTES } from "../codes/fields";
import { brandPresetDelete, brandPresetList, brandPresetSave } from "../codes/brandPresets";
import { consoleFileRoute, consoleRoute, routeTable } from "./route";
import { importRoute } from "./importRoutes";
import { jobRoutes } from "./jobRoutes";
import { abuseRoutes } from "./abuseRoutes";
import { settingsRoutes } from "./settingsRoutes";
import { webhookRoutes } from "./webhookRoutes";
import { gs1Routes } from "./gs1Routes";
import { campaignConsoleRoutes } from "./campaignRoutes";
import { domainConsoleRoutes } from "./domainRoutes";
import { conversionConsoleRoutes } from "./conversionRoutes";

/** Same length and alphabet as a real id, so a dynamic preview has the final code's size and layout. */
const PREVIEW_ID = "000000000000";

const CodeParams = z.object({ codeId: ids.codeId }).strict();

/** Brand presets in Settings: saved once (logo checked and stored), then used by name in any design. */
const brandPresetRoutes = routeTable(
  consoleRoute({
    method: "GET",
    path: "/api/console/brand-presets",
    summary: "List the workspace's brand presets",
    credential: "member",
    response: BrandPresetListSchema,
    handle: ({ caller }) => brandPresetList(caller.merchantId),
  }),
  consoleRoute({
    method: "POST",
    path: "/api/console/brand-presets/:name",
    summary: "Save a brand preset",
    credential: "member",
    limit: "consoleWrites",
    maxBodyBytes: DESIGN_MAX_BODY_BYTES,
    params: BrandPresetParams,
    body: BrandPresetSchema,
    response: BrandPresetSavedSchema,
    handle: ({ caller, params, body }) => brandPresetSave(caller, params.name, body.design),
  }),
  consoleRoute({
    method: "DELETE",
    path: "/api/console/brand-presets/:name",
    summary: "Delete a brand preset",
    credential: "member",
    limit: "consoleWrites",
    params: BrandPresetParams,
    response: DoneSchema,
    handle: ({ caller, params }) => brandPresetDelete(caller.merchantId, params.name),
  }),
);

/** The console's routes for codes made by hand or from a spreadsheet, and the settings lists. */
export const codeRoutes = routeTable(
  ...settingsRoutes,
  ...webhookRoutes,
  ...gs1Routes,
  ...campaignConsoleRoutes,
  importRoute,
  ...jobRoutes,
  ...abuseRoutes,
  ...domainConsoleRoutes,
  ...conversionConsoleRoutes,
  ...brandPresetRoutes,
  consoleFileRoute({
    method: "POST",
    path: "/api/console/codes/preview",
    summary: "Preview the PNG of a code before creating it",
    credential: "member",
    file: "image/png",
    limit: "previews",
    maxBodyBytes: DESIGN_MAX_BODY_BYTES,
    body: ConsolePreviewSchema,
    async handle({ res, caller, body: input }) {
      const { template, boostFrame, dynamic } = effectiveLook(input);
      // A design is resolved as on create (preset, checked logo), so the preview is the exact final image.
      const design = input.design ? await resolveDesign(caller.merchantId, input.design) : null;
      // The link's host is the one the code would get (a named domain, or the workspace's default).
      const [choice] = await domainChoices(caller.merchantId, [{ domainId: input.domainId, dynamic }]);
      if (!choice.ok) throw choice.error;
      const png = await renderCodePng({
        dynamic,
        dynamicLink: dynamic ? dynamicLinkFor(PREVIEW_ID, choice.domain?.hostname) : null,
        destinationUrl: input.destinationUrl,
        boostFrame,
        template,
        design,
      });
      res.set({ "Content-Type": "image/png", "X-Preview-Dynamic": String(dynamic) }).send(png);
    },
  }),
  consoleFileRoute({
    method: "POST",
    path: "/api/console/codes/:codeId/preview",
    summary: "Preview a code with a changed design",
    credential: "member",
    file: "image/png",
    limit: "previews",
    maxBodyBytes: DESIGN_MAX_BODY_BYTES,
    params: CodeParams,
    body: CodeDesignPreviewSchema,
    async handle({ res, caller, params, body }) {
      // The code's own payload and frame with the design tried on: exactly what saving it would store.
      const code = await findCode(caller.merchantId, { codeId: params.codeId });
      const design = body.design ? await changedDesign(caller.merchantId, code, body.design, body.keepLogo) : null;
      res.set({ "Content-Type": "image/png" }).send(await renderCodePng({ ...code, design }));
    },
  }),
  consoleRoute({
    method: "POST",
    path: "/api/console/codes",
    summary: "Create a code (published unless asked otherwise)",
    credential: "member",
    response: ConsoleCodeSchema,
    limit: "consoleWrites",
    maxBodyBytes: DESIGN_MAX_BODY_BYTES,
    body: ConsoleNewCodeSchema,
    async handle({ res, caller, body }) {
      const who = caller;
      const { publish = true, ...input } = body;
      const publishing = publishOnCreate(who.merchantId, who.uid);
      const [code] = await createCodes(who.merchantId, [input], "console", (batch, codes) => {
        if (publish) publishing.write(batch, codes);
      });
      if (publish) await publishing.announce([code]);
      res.status(201);
      return publicCode({ ...code, status: publish ? "published" : "draft" });
    },
  }),
  consoleRoute({
    method: "GET",
    path: "/api/console/codes/:codeId",
    summary: "One code",
    credential: "member",
    response: OwnCodeSchema,
    params: CodeParams,
    async handle({ caller, params }) {
      const code = await findCode(caller.merchantId, { codeId: params.codeId });
      // The owner sees why scans get a warning page (an operator's takedown), never only that they do.
      return { ...publicCode(code), takenDown: code.takenDown ?? null, passwordNotice: code.passwordNotice ?? null };
    },
  }),
  consoleRoute({
    method: "POST",
    path: "/api/console/codes/:codeId/unpublish",
    summary: "Unpublish a code",
    credential: "member",
    response: UnpublishedSchema,
    limit: "consoleWrites",
    params: CodeParams,
    async handle({ caller, params }) {
      return unpublishCode(caller.merchantId, params.codeId, caller.uid);
    },
  }),
);
