import { z } from "zod";
import { AppError } from "../../core/errors";
import { getWorkspace } from "../../store/workspaces";
import { defineTool, READ_ONLY } from "../tool";
import { authMethodOutput } from "./ping";

export const merchantGetProfileTool = defineTool({
  name: "svc.merchant.get_profile",
  title: "Get the workspace profile",
  description: "The workspace of the calling key or user, and the caller's role and scopes.",
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: z.object({}).strict(),
  output: z.object({
    merchantId: z.string(),
    name: z.string(),
    createdAt: z.string(),
    caller: z.object({
      uid: z.string(),
      authMethod: authMethodOutput,
      role: z.enum(["owner", "member"]),
      scopes: z.array(z.string()),
      keyPrefix: z.string().optional(),
    }),
  }),
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
  summarize: (r) => `Workspace "${r.name}" (${r.merchantId}); you are ${r.caller.role} with scopes ${r.caller.scopes.join(", ") || "none"}.`,
});
