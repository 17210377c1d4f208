import { z } from "zod";
import { LIMITS, text } from "../../menus/fields";
import { createDraft } from "../../store/drafts";
import { defineTool } from "../tool";

const isUrl = (s: string) => /^https?:\/\/\S+$/i.test(s);

export const audioCreateTool = defineTool({
  name: "svc.audio.create",
  description: "Creates a draft audio code (a near-ultrasonic sharing experience the merchant can publish) carrying a short text or URL payload.",
  scope: "audio:write",
  input: z
    .object({
      title: text(LIMITS.title).describe(`At most ${LIMITS.title} characters`),
      payloadText: text(LIMITS.payloadText).describe(`Text or URL to encode, at most ${LIMITS.payloadText} characters`),
      campaign: text(LIMITS.campaign).optional().describe(`At most ${LIMITS.campaign} characters`),
    })
    .strict(),
  async handler(args, { caller }) {
    const now = new Date();
    const draft = await createDraft(caller.merchantId, "audioCodes", "audioCodeId", {
      title: args.title,
      payloadText: args.payloadText,
      payloadKind: isUrl(args.payloadText) ? "url" : "text",
      campaign: args.campaign ?? null,
      status: "draft",
      createdAt: now,
      updatedAt: now,
    });
    return { ...draft, createdAt: now.toISOString(), updatedAt: now.toISOString() };
  },
});
