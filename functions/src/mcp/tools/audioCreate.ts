import { z } from "zod";
import { LIMITS, text } from "../../menus/fields";
import { draftAudioCode } from "../../menus/drafts";
import { publicAudioCode } from "../../menus/model";
import { audioCodeOutputShape } from "../../menus/schemas";
import { consoleUrl, consoleUrlField } from "../outputs";
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
  output: z.object({ ...audioCodeOutputShape, consoleUrl: consoleUrlField }),
  async handler(args, { caller }) {
    return { ...publicAudioCode(await draftAudioCode(caller.merchantId, args)), consoleUrl: consoleUrl("content") };
  },
  summarize: (r) => `Drafted audio code "${r.title}" (${r.audioCodeId}) carrying ${r.payloadKind === "url" ? "a URL" : "text"}. Publish it in the console: ${r.consoleUrl}`,
});
