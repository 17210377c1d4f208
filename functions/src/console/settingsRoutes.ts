// Console settings data for any member of the workspace: who belongs to it and its phone-book listings.
import type { Express, Request, Response } from "express";
import { auth } from "../core/firebase";
import { callerForUser, verifyUser } from "../auth/caller";
import { publicListing } from "../listings/service";
import { listMembers } from "../store/workspaceLists";
import { listWorkspaceListings } from "../store/listings";

const caller = async (req: Request) => callerForUser(await verifyUser({ authorization: req.headers.authorization, cookie: req.headers.cookie }));

export function registerSettingsRoutes(app: Express): void {
  app.get("/api/console/members", async (req: Request, res: Response) => {
    const who = await caller(req);
    const members = await listMembers(who.merchantId);
    // Emails come from Auth (memberships store only the uid); one batched lookup for up to 100 members.
    const users = members.length ? await auth().getUsers(members.slice(0, 100).map((m) => ({ uid: m.uid }))) : { users: [] };
    const emails = new Map(users.users.map((u) => [u.uid, u.email ?? null]));
    res.json({
      members: members.map((m) => ({ uid: m.uid, email: emails.get(m.uid) ?? null, role: m.role, createdAt: m.createdAt?.toISOString() ?? null, you: m.uid === who.uid })),
    });
  });

  app.get("/api/console/workspace-listings", async (req: Request, res: Response) => {
    const who = await caller(req);
    res.json({ listings: (await listWorkspaceListings(who.merchantId)).map(publicListing) });
  });
}
