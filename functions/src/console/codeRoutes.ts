// Console routes for making and managing codes by hand: live preview of the exact PNG, create (and publish
// in the same step: a code the signed-in merchant makes here is theirs to release), one code, unpublish.
import { z } from "zod";
import { ids } from "../core/ids";
import { endpoint, type Endpoint } from "../http/endpoint";
import { publicCode } from "../codes/model";
import { changedDesign, createCodes, dynamicLinkFor, renderCodePng } from "../codes/service";
import { effectiveLook } from "../codes/look";
import { findCode } from "../store/codes";
import { resolveDesign } from "../designs/design";
import { publishOnCreate, unpublishCode } from "../codes/publish";
import { BrandPresetParams, BrandPresetSchema, CodeDesignPreviewSchema, ConsoleNewCodeSchema, ConsolePreviewSchema } from "./schemas";
import { DESIGN_MAX_BODY_BYTES } from "../codes/fields";
import { publicBrandPreset, publicDesign } from "../codes/model";
import { AppError } from "../core/errors";
import { BRAND_PRESETS_MAX, deleteBrandPreset, listBrandPresets, saveBrandPreset } from "../store/brandPresets";
import { importEndpoint } from "./importRoutes";
import { jobEndpoints } from "./jobRoutes";
import { abuseEndpoints } from "./abuseRoutes";
import { settingsEndpoints } from "./settingsRoutes";
import { webhookEndpoints } from "./webhookRoutes";

/** Same length and alphabet as a real id, so a dynamic preview has the final code's size and layout. */
const PREVIEW_ID = "000000000000";

const CodeParams = z.object({ codeId: ids.codeId }).strict();

/** Brand presets in Settings: saved once (logo checked and stored), then used by name in any design. */
function brandPresetEndpoints(): Endpoint[] {
  return [
    endpoint({
      method: "GET",
      path: "/api/console/brand-presets",
      limit: "consoleReads",
      summary: "List the workspace's brand presets",
      internal: true,
      credential: "member",
      ownAddressOnly: true,
      async handle({ caller }) {
        return { presets: (await listBrandPresets(caller.merchantId)).map(publicBrandPreset) };
      },
    }),
    endpoint({
      method: "POST",
      path: "/api/console/brand-presets/:name",
      summary: "Save a brand preset",
      internal: true,
      credential: "member",
      ownAddressOnly: true,
      limit: "consoleWrites",
      maxBodyBytes: DESIGN_MAX_BODY_BYTES,
      params: BrandPresetParams,
      body: BrandPresetSchema,
      async handle({ caller, params, body }) {
        const who = caller;
        // Resolved like a code's design (contrast checked, logo re-encoded and stored); drawn when used.
        const design = { ...(await resolveDesign(who.merchantId, body.design)), preset: null };
        if (!(await saveBrandPreset(who.merchantId, { name: params.name, design, updatedBy: who.uid }))) {
          throw new AppError("CONFLICT", `This workspace already has ${BRAND_PRESETS_MAX} brand presets`, { hint: "Delete one you no longer use." });
        }
        return { ok: true, preset: { name: params.name, design: publicDesign(design) } };
      },
    }),
    endpoint({
      method: "DELETE",
      path: "/api/console/brand-presets/:name",
      summary: "Delete a brand preset",
      internal: true,
      credential: "member",
      ownAddressOnly: true,
      limit: "consoleWrites",
      params: BrandPresetParams,
      async handle({ caller, params }) {
        if (!(await deleteBrandPreset(caller.merchantId, params.name))) throw new AppError("NOT_FOUND", `No brand preset named "${params.name}"`);
        return { ok: true };
      },
    }),
  ];
}

/** The console's routes for codes made by hand or from a spreadsheet, and the settings lists. */
export const codeEndpoints: Endpoint[] = [
  ...settingsEndpoints,
  ...webhookEndpoints,
  importEndpoint,
  ...jobEndpoints,
  ...abuseEndpoints,
  ...brandPresetEndpoints(),
  endpoint({
    method: "POST",
    path: "/api/console/codes/preview",
    summary: "Preview the PNG of a code before creating it",
    internal: true,
    credential: "member",
    ownAddressOnly: true,
    limit: "previews",
    maxBodyBytes: DESIGN_MAX_BODY_BYTES,
    body: ConsolePreviewSchema,
    async handle({ res, caller, body: input }) {
      const { template, boostFrame, dynamic } = effectiveLook(input);
      // A design is resolved as on create (preset, checked logo), so the preview is the exact final image.
      const design = input.design ? await resolveDesign(caller.merchantId, input.design) : null;
      const png = await renderCodePng({
        dynamic,
        dynamicLink: dynamic ? dynamicLinkFor(PREVIEW_ID) : null,
        destinationUrl: input.destinationUrl,
        boostFrame,
        template,
        design,
      });
      res.set({ "Content-Type": "image/png", "X-Preview-Dynamic": String(dynamic) }).send(png);
    },
  }),
  endpoint({
    method: "POST",
    path: "/api/console/codes/:codeId/preview",
    summary: "Preview a code with a changed design",
    internal: true,
    credential: "member",
    ownAddressOnly: true,
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
  endpoint({
    method: "POST",
    path: "/api/console/codes",
    summary: "Create a code (published unless asked otherwise)",
    internal: true,
    credential: "member",
    ownAddressOnly: true,
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
  endpoint({
    method: "GET",
    path: "/api/console/codes/:codeId",
    summary: "One code",
    internal: true,
    credential: "member",
    ownAddressOnly: true,
    limit: "consoleReads",
    params: CodeParams,
    async handle({ caller, params }) {
      const code = await findCode(caller.merchantId, { codeId: params.codeId });
      // The owner sees why scans get a warning page (an operator's takedown), never only that they do.
      return { ...publicCode(code), takenDown: code.takenDown ?? null };
    },
  }),
  endpoint({
    method: "POST",
    path: "/api/console/codes/:codeId/unpublish",
    summary: "Unpublish a code",
    internal: true,
    credential: "member",
    ownAddressOnly: true,
    limit: "consoleWrites",
    params: CodeParams,
    async handle({ caller, params }) {
      return unpublishCode(caller.merchantId, params.codeId, caller.uid);
    },
  }),
];
