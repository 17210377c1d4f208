// Who the tool server is and what it offers: the same in both protocol eras (initialize answers with it,
// server/discover and every 2026-07-28 result carry it).
import { TOOL_SERVER_VERSION } from "../core/config";

export const SERVER_INFO = { name: "svc-mcp", version: TOOL_SERVER_VERSION } as const;

/** Tools, and the read-only ui:// resources of the MCP Apps extension (no subscriptions: they change only with a deploy). */
export const SERVER_CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false } } as const;

export const SERVER_INSTRUCTIONS =
  "Tools act inside the merchant workspace of the calling key and only create drafts; the merchant publishes in the console.";

/** Display name and one-line description (at most 100 characters: server cards and the registry's server.json). */
export const SERVER_TITLE = "svc merchant QR codes";
export const SERVER_SUMMARY = "Draft QR codes, menus and scan challenges for one merchant workspace, and read their scan analytics.";

/** Reverse-DNS server name (registry and server card): the app host's labels reversed, then `/svc-mcp`. */
export function serverName(appUrl: string): string {
  const host = new URL(appUrl).hostname;
  const ip = /^[\d.]+$/.test(host) || host.startsWith("[");
  return `${ip ? "localhost" : host.split(".").reverse().join(".")}/svc-mcp`;
}
