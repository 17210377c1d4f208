// Console settings data for any member of the workspace: who belongs to it and its phone-book listings.
import { auth } from "../core/firebase";
import { endpoint } from "../http/endpoint";
import { publicListing } from "../listings/service";
import { listMembers } from "../store/workspaceLists";
import { listWorkspaceListings } from "../store/listings";

export const settingsEndpoints = [
  endpoint({
    method: "GET",
    path: "/api/console/members",
    credential: "member",
    ownAddressOnly: true,
    standing: "consoleWrites",
    async handle({ caller }) {
      const who = caller!;
      const members = await listMembers(who.merchantId);
      // Emails come from Auth (memberships store only the uid); one batched lookup for up to 100 members.
      const users = members.length ? await auth().getUsers(members.slice(0, 100).map((m) => ({ uid: m.uid }))) : { users: [] };
      const emails = new Map(users.users.map((u) => [u.uid, u.email ?? null]));
      return {
        members: members.map((m) => ({ uid: m.uid, email: emails.get(m.uid) ?? null, role: m.role, createdAt: m.createdAt?.toISOString() ?? null, you: m.uid === who.uid })),
      };
    },
  }),
  endpoint({
    method: "GET",
    path: "/api/console/workspace-listings",
    credential: "member",
    ownAddressOnly: true,
    standing: "consoleWrites",
    async handle({ caller }) {
      return { listings: (await listWorkspaceListings(caller!.merchantId)).map(publicListing) };
    },
  }),
];
