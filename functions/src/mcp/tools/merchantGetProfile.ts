import { z } from "zod";
import { AppError } from "../../core/errors";
import { getWorkspace } from "../../store/workspaces";
import { defineTool } from "../tool";

export const merchantGetProfileTool = defineTool({
  name: "svc.merchant.get_profile",
  description: "Returns the merchant workspace attached to the calling key or user: id, name, creation time, and the caller's role and scopes.",
  scope: "merchant:read",
  input: z.object({}).strict(),
  async handler(_args, { caller }) {
    const workspace = await getWorkspace(caller.merchantId);
    if (!workspace) throw new AppError("NOT_FOUND", "Workspace not found");
    return {
      merchantId: workspace.merchantId,
      name: workspace.name,
      createdAt: workspace.createdAt.toISOString(),
      caller: {
        uid: caller.uid,
        authMethod: caller.authMethod,
        role: caller.role ?? (caller.uid === workspace.ownerUid ? "owner" : "member"),
        scopes: [...caller.scopes],
        ...(caller.keyPrefix ? { keyPrefix: caller.keyPrefix } : {}),
      },
    };
  },
});
