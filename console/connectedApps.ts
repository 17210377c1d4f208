// Console section "Connected apps": the apps a person authorized through OAuth, with revoke. Takes the
// console's own helpers so it stays independent of how main.ts lays out the page.
import type { Api } from "./api";

export interface ConsoleKit {
  api: Api;
  h: <K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, string>, ...children: Array<Node | string>) => HTMLElementTagNameMap[K];
  button: (label: string, onClick: () => unknown, attrs?: Record<string, string>) => HTMLButtonElement;
  render: () => Promise<void>;
}

export async function connectedAppsSection({ api, h, button, render }: ConsoleKit): Promise<HTMLElement> {
  const { apps } = await api("GET /connected-apps");
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "never");
  const rows = apps.map((a) =>
    h(
      "tr",
      { "data-grant-id": a.grantId },
      h("td", { class: "app-name" }, a.clientName, h("br"), h("span", { class: "muted" }, a.clientId)),
      h("td", {}, a.scopes.join(", ")),
      h("td", {}, when(a.createdAt)),
      h("td", {}, when(a.lastUsedAt)),
      h("td", { class: "app-status" }, a.revokedAt ? "revoked" : "active"),
      h("td", {}, a.revokedAt ? "" : button("Revoke", async () => { await api("POST /connected-apps/:grantId/revoke", { params: { grantId: a.grantId } }); await render(); }, { class: "revoke-app" })),
    ),
  );
  return h(
    "section",
    { id: "connected-apps" },
    h("h2", {}, "Connected apps"),
    h("p", { class: "muted" }, "Apps you connected with OAuth (for example a chat assistant's custom connector). Revoking stops them on their next request."),
    apps.length
      ? h("table", {}, h("thead", {}, h("tr", {}, ...["App", "Scopes", "Connected", "Last used", "Status", ""].map((t) => h("th", {}, t)))), h("tbody", { id: "app-rows" }, ...rows))
      : h("p", { id: "no-apps" }, "No connected apps yet."),
  );
}
