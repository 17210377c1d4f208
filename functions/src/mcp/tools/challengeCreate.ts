import { z } from "zod";
import { CHALLENGE_TYPES, isoDate, LIMITS, text } from "../../menus/fields";
import { draftChallenge } from "../../menus/drafts";
import { publicChallenge } from "../../menus/model";
import { challengeOutputShape } from "../../menus/schemas";
import { consoleUrl, consoleUrlField } from "../outputs";
import { CREATES_DRAFT, defineTool } from "../tool";

export const challengeCreateTool = defineTool({
  name: "svc.challenge.create",
  title: "Draft a scan challenge",
  description: "Creates a draft scan challenge, streak, game or loyalty campaign; endsAt must be after startsAt.",
  scope: "challenge:write",
  annotations: CREATES_DRAFT,
  input: z
    .object({
      name: text(LIMITS.challengeName),
      challengeType: z.enum(CHALLENGE_TYPES),
      description: text(LIMITS.description).optional(),
      rewardText: text(LIMITS.rewardText).optional(),
      startsAt: isoDate.optional(),
      endsAt: isoDate.optional(),
    })
    .strict()
    .refine((c) => !c.startsAt || !c.endsAt || Date.parse(c.endsAt) > Date.parse(c.startsAt), {
      message: "endsAt must be after startsAt",
      path: ["endsAt"],
    }),
  output: z.object({ ...challengeOutputShape, consoleUrl: consoleUrlField }),
  async handler(args, { caller }) {
    return { ...publicChallenge(await draftChallenge(caller.merchantId, args)), consoleUrl: consoleUrl("content") };
  },
  summarize: (r) => `Drafted ${r.challengeType} challenge "${r.name}" (${r.challengeId})${r.startsAt ? ` from ${r.startsAt}` : ""}${r.endsAt ? ` to ${r.endsAt}` : ""}. Publish it in the console: ${r.consoleUrl}`,
});
