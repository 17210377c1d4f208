// The inline app (MCP Apps): connects to its host through the ext-apps App class, waits for the tool
// result, and draws the view its page was built for (body data-view: code, scans or menu).
import { App } from "@modelcontextprotocol/ext-apps";
import { codeView, menuView, scansView, type OpenLink } from "./views";

const root = document.getElementById("app")!;
const view = document.body.dataset.view as "code" | "scans" | "menu";
const app = new App({ name: "svc-mcp-app", version: "1.0.0" });

const open: OpenLink = (url) => {
  app.openLink({ url }).catch(() => undefined);
};

function show(node: Node): void {
  root.replaceChildren(node);
}

app.ontoolresult = (result) => {
  const data = result.structuredContent as Record<string, unknown> | undefined;
  if (result.isError || !data) {
    const text = (result.content ?? []).map((c) => (c.type === "text" ? c.text : "")).join(" ");
    show(Object.assign(document.createElement("p"), { className: "error", textContent: text || "The tool returned no result." }));
    return;
  }
  // The views read only the fields they draw; the result's schema is the tool's outputSchema.
  show(view === "code" ? codeView(data as never, open) : view === "scans" ? scansView(data as never, open) : menuView(data as never, open));
};

app.connect().catch((e: unknown) => show(Object.assign(document.createElement("p"), { className: "error", textContent: `Not connected to a host: ${String(e)}` })));
