// Zod shapes of the drafts (menus, audio codes, challenges) as every surface returns them (menus/model.ts
// makes them from the stored records): the MCP tools' output schemas (mcp/outputs.ts, mcp/tools/) and the
// console's draft lists (console/app.ts), which add when and by whom a draft was published.
import { z } from "zod";
import { draftStatus, isoTime } from "../codes/schemas";
import { CHALLENGE_TYPES } from "./fields";

export const menuItemOutput = z.object({ itemId: z.string(), name: z.string(), description: z.string().nullable(), price: z.number().nullable() });

export const menuOutputShape = {
  menuId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  locationId: z.string().nullable(),
  status: draftStatus,
  sections: z.array(z.object({ name: z.string(), items: z.array(menuItemOutput) })),
  itemCount: z.number().int(),
  createdAt: isoTime,
  updatedAt: isoTime,
};
export const menuOutput = z.object(menuOutputShape);

export const audioCodeOutputShape = {
  audioCodeId: z.string(),
  title: z.string(),
  payloadText: z.string(),
  payloadKind: z.enum(["url", "text"]),
  campaign: z.string().nullable(),
  status: draftStatus,
  createdAt: z.string(),
  updatedAt: z.string(),
};

export const challengeOutputShape = {
  challengeId: z.string(),
  name: z.string(),
  challengeType: z.enum(CHALLENGE_TYPES),
  description: z.string().nullable(),
  rewardText: z.string().nullable(),
  startsAt: z.string().nullable(),
  endsAt: z.string().nullable(),
  status: draftStatus,
  createdAt: z.string(),
  updatedAt: z.string(),
};

/** When and by whom the console published a draft: null while it is one. */
export const publicationShape = { publishedAt: isoTime.nullable(), publishedBy: z.string().nullable() };
