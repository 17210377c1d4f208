// Who the tool server is and what it offers: the same in both protocol eras (initialize answers with it,
// server/discover and every 2026-07-28 result carry it).
import { TOOL_SERVER_VERSION } from "../core/config";

export const SERVER_INFO = { name: "svc-mcp", version: TOOL_SERVER_VERSION } as const;

export const SERVER_CAPABILITIES = { tools: { listChanged: false } } as const;

export const SERVER_INSTRUCTIONS =
  "Tools act inside the merchant workspace of the calling key and only create drafts; the merchant publishes in the console.";
