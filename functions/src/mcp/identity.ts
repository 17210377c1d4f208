// Who the tool server is and what it offers: the same in both protocol eras (initialize answers with it,
// server/discover and every 2026-07-28 result carry it).
import { TOOL_SERVER_VERSION } from "../core/config";

export const SERVER_INFO = { name: "svc-mcp", version: TOOL_SERVER_VERSION } as const;

/** Tools, and the read-only ui:// resources of the MCP Apps extension (no subscriptions: they change only with a deploy). */
export const SERVER_CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false } } as const;

export const SERVER_INSTRUCTIONS =
  "Tools act inside the merchant workspace of the calling key and only create drafts; the merchant publishes in the console.";
