import { z } from "zod";
import { LIMITS, text } from "../../menus/fields";
import { draftAudioCode } from "../../menus/drafts";
import { consoleUrl, consoleUrlField, draftStatus } from "../outputs";
import { CREATES_DRAFT, defineTool } from "../tool";

export const audioCreateTool = defineTool({
  name: "svc.audio.create",
  title: "Draft an audio code",
  description: "Creates a draft audio code: a near-ultrasonic sharing experience carrying a short text or URL.",
  scope: "audio:write",
  annotations: CREATES_DRAFT,
  input: z
    .object({
      title: text(LIMITS.title),
      payloadText: text(LIMITS.payloadText).describe("Text or URL to encode"),
      campaign: text(LIMITS.campaign).optional(),
    })
    .strict(),
  output: z.object({
    audioCodeId: z.string(),
    title: z.string(),
    payloadText: z.string(),
    payloadKind: z.enum(["url", "text"]),
    campaign: z.string().nullable(),
    status: draftStatus,
    createdAt: z.string(),
    updatedAt: z.string(),
    consoleUrl: consoleUrlField,
  }),
  async handler(args, { caller }) {
    const { publishedAt: _publishedAt, publishedBy: _publishedBy, ...draft } = await draftAudioCode(caller.merchantId, args);
    return { ...draft, createdAt: draft.createdAt.toISOString(), updatedAt: draft.updatedAt.toISOString(), consoleUrl: consoleUrl("content") };
  },
  summarize: (r) => `Drafted audio code "${r.title}" (${r.audioCodeId}) carrying ${r.payloadKind === "url" ? "a URL" : "text"}. Publish it in the console: ${r.consoleUrl}`,
});
