import { z } from "zod";
import { CHALLENGE_TYPES, isoDate, LIMITS, text } from "../../menus/fields";
import { createDraft } from "../../store/drafts";
import { defineTool } from "../tool";

export const challengeCreateTool = defineTool({
  name: "svc.challenge.create",
  description: "Creates a draft scan challenge, streak, game or loyalty campaign (challengeType streak, scan_count, visit_window or game). startsAt/endsAt are ISO 8601 dates; endsAt must be after startsAt.",
  scope: "challenge:write",
  input: z
    .object({
      name: text(LIMITS.challengeName).describe(`At most ${LIMITS.challengeName} characters`),
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
  async handler(args, { caller }) {
    const now = new Date();
    const draft = await createDraft(caller.merchantId, "challenges", "challengeId", {
      name: args.name,
      challengeType: args.challengeType,
      description: args.description ?? null,
      rewardText: args.rewardText ?? null,
      startsAt: args.startsAt ? new Date(args.startsAt).toISOString() : null,
      endsAt: args.endsAt ? new Date(args.endsAt).toISOString() : null,
      status: "draft",
      createdAt: now,
      updatedAt: now,
    });
    return { ...draft, createdAt: now.toISOString(), updatedAt: now.toISOString() };
  },
});
