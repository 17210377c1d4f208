// MCP Apps (`@modelcontextprotocol/ext-apps`): the ui:// resources three tools link in `_meta.ui.resourceUri`.
// Each is one self-contained HTML page (mcp-app/, bundled at build time into lib/mcp/ui/<view>.html);
// the HTML is read from disk only when a client reads the resource, so tools/call never pays for it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../../core/errors";

/** The MCP Apps HTML profile (ext-apps RESOURCE_MIME_TYPE). */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** No network and no outside resources: the app draws everything from the tool result it is handed. */
const UI_META = { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true } };

export const UI_RESOURCES = {
  code: { uri: "ui://svc/code.html", name: "code-card", title: "QR code card", description: "The drafted code drawn from its link, with its PNG and SVG downloads and the console link where a person publishes it." },
  scans: { uri: "ui://svc/scans.html", name: "scan-chart", title: "Scan chart", description: "Scans per day over the chosen range, with totals, unique scanners and the top countries and devices." },
  menu: { uri: "ui://svc/menu.html", name: "menu-preview", title: "Menu preview", description: "The drafted menu as guests would read it, marked as a draft, with the console link where a person publishes it." },
} as const;

export type UiView = keyof typeof UI_RESOURCES;

/** resources/list: the same for every caller. */
export function listResources(): Record<string, unknown>[] {
  return Object.values(UI_RESOURCES).map((r) => ({ ...r, mimeType: APP_MIME_TYPE, _meta: UI_META }));
}

const html = new Map<string, string>();

/** Where the build puts the pages: next to this module once compiled. */
export function appHtmlPath(view: UiView): string {
  return join(__dirname, `${view}.html`);
}

/** resources/read of one ui:// resource. */
export function readResource(params: unknown): Record<string, unknown> {
  const uri = typeof params === "object" && params !== null ? (params as { uri?: unknown }).uri : undefined;
  if (typeof uri !== "string" || uri.length === 0) {
    throw new AppError("VALIDATION_FAILED", "params.uri is missing: name the resource to read", { hint: "resources/list names every resource." });
  }
  const view = (Object.keys(UI_RESOURCES) as UiView[]).find((v) => UI_RESOURCES[v].uri === uri);
  if (!view) {
    throw new AppError("RESOURCE_NOT_FOUND", `Unknown resource: ${uri.slice(0, 200)}`, { hint: "resources/list names every resource.", details: { uri: uri.slice(0, 200) } });
  }
  let text = html.get(view);
  if (text === undefined) {
    text = readFileSync(appHtmlPath(view), "utf8");
    html.set(view, text);
  }
  return { contents: [{ uri, mimeType: APP_MIME_TYPE, text, _meta: UI_META }] };
}
