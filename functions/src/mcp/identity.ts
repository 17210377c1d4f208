// Who the tool server is and what it offers: the same in both protocol eras (initialize answers with it,
// server/discover and every 2026-07-28 result carry it).
import { TOOL_SERVER_VERSION } from "../core/config";
import { ARGUMENT_CONVENTIONS } from "./outputs";

export const SERVER_INFO = { name: "svc-mcp", version: TOOL_SERVER_VERSION } as const;

/** Tools, and the read-only ui:// resources of the MCP Apps extension (no subscriptions: they change only with a deploy). */
export const SERVER_CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false } } as const;

/**
 * Said once here rather than on every tool (docs/mcp.md, "Context budget"): where tools act, how results
 * read, and where the tools beyond the default list are.
 */
export const SERVER_INSTRUCTIONS = [
  "Tools act inside the merchant workspace of the calling key and only create drafts (status draft); a person publishes them in the console at consoleUrl. String arguments are never empty.",
  ARGUMENT_CONVENTIONS,
  "Results: every field an outputSchema lists is present (null when empty) unless the schema lists required, which then names the fields always present. Times are ISO 8601; days (from, to, date) are YYYY-MM-DD in the workspace's timeZone.",
  "Analytics count people's scans; bots are counted apart (botScans) and repeats within a day in repeatScans. byDay has every day of the window, zeros included; hourByWeekday is [weekday][hour], Monday 0, local hours; pending: true means the newest scans are not counted yet.",
  "Lists are newest first; pass nextCursor back as cursor for the next page. A result stays within about 6,000 tokens: truncated: true means a page was cut to fit, and nextCursor continues it.",
  "More tools (webhooks, brand designs and presets, import jobs): svc.tools.search finds them by keyword with full definitions, svc.tools.execute runs one by name; or connect to /api/mcp/x/<toolset> (webhooks, designs, jobs, core, all; add /readonly for read-only tools).",
].join(" ");

/** Display name and one-line description (at most 100 characters: server cards and the registry's server.json). */
export const SERVER_TITLE = "svc merchant QR codes";
export const SERVER_SUMMARY = "Draft QR codes, menus and scan challenges for one merchant workspace, and read their scan analytics.";

/** Reverse-DNS server name (registry and server card): the app host's labels reversed, then `/svc-mcp`. */
export function serverName(appUrl: string): string {
  const host = new URL(appUrl).hostname;
  const ip = /^[\d.]+$/.test(host) || host.startsWith("[");
  return `${ip ? "localhost" : host.split(".").reverse().join(".")}/svc-mcp`;
}
