// Console settings for any member of the workspace: who belongs to it, its phone-book listings, and (for
// the owner) the time zone its scan analytics count days and hours in.
import { z } from "zod";
import { auth } from "../core/firebase";
import { AppError } from "../core/errors";
import { timeZoneSchema } from "../scans/localTime";
import { setWorkspaceTimeZone } from "../store/workspaces";
import { consoleRoute, routeTable } from "./route";
import { ListingListSchema, MemberListSchema, TimeZoneSetSchema } from "./schemas";
import { publicListing } from "../listings/service";
import { listMembers } from "../store/workspaceLists";
import { listWorkspaceListings } from "../store/listings";

const TimeZoneSchema = z.object({ timeZone: timeZoneSchema }).strict();

export const settingsRoutes = routeTable(
  consoleRoute({
    method: "POST",
    path: "/api/console/workspace/time-zone",
    summary: "Set the workspace's time zone (owner)",
    response: TimeZoneSetSchema,
    credential: "member",
    limit: "consoleWrites",
    body: TimeZoneSchema,
    async handle({ caller, body }) {
      if (caller.role !== "owner") throw new AppError("FORBIDDEN", "Only the workspace's owner can change its time zone");
      await setWorkspaceTimeZone(caller.merchantId, body.timeZone);
      return { ok: true as const, timeZone: body.timeZone };
    },
  }),
  consoleRoute({
    method: "GET",
    path: "/api/console/members",
    summary: "The workspace's members",
    response: MemberListSchema,
    credential: "member",
    async handle({ caller }) {
      const who = caller;
      const members = await listMembers(who.merchantId);
      // Emails come from Auth (memberships store only the uid); one batched lookup for up to 100 members.
      const users = members.length ? await auth().getUsers(members.slice(0, 100).map((m) => ({ uid: m.uid }))) : { users: [] };
      const emails = new Map(users.users.map((u) => [u.uid, u.email ?? null]));
      return {
        members: members.map((m) => ({ uid: m.uid, email: emails.get(m.uid) ?? null, role: m.role, createdAt: m.createdAt?.toISOString() ?? null, you: m.uid === who.uid })),
      };
    },
  }),
  consoleRoute({
    method: "GET",
    path: "/api/console/workspace-listings",
    summary: "The workspace's phone book listings",
    response: ListingListSchema,
    credential: "member",
    async handle({ caller }) {
      return { listings: (await listWorkspaceListings(caller.merchantId)).map(publicListing) };
    },
  }),
);
