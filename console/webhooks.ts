// Console Settings → Webhooks: endpoints (add, test, rotate the secret, enable, delete) and each one's
// delivery log with redelivery. Takes the console's helpers (ConsoleKit) like the connected-apps section.
import type { ConsoleKit } from "./connectedApps";
import { field, table } from "./dom";

/** Why an endpoint was disabled, as the owner reads it (store/webhooks.ts WEBHOOK_DISABLED_REASONS). */
const DISABLED_BECAUSE: Record<string, string> = {
  failing: "every attempt failed for over an hour",
  "creator-left": "the member who added it left the workspace",
  "creator-disabled": "the account that added it is disabled",
  "credential-revoked": "the key or app that added it was revoked",
};

const EVENTS = ["scan.created", "code.created", "code.updated", "code.published"] as const;

export async function webhooksSection({ api, h, button, render }: ConsoleKit): Promise<HTMLElement> {
  const { webhooks } = await api("GET /webhooks");
  const url = field("Endpoint URL (https)", h("input", { id: "webhook-url", type: "url", placeholder: "https://example.com/hooks/svc" }));
  url.wrap.classList.add("url-field"); // room for a whole URL (and its placeholder) on a wide screen
  const boxes = EVENTS.map((e) => h("label", { class: "check" }, h("input", { type: "checkbox", value: e, checked: "" }), ` ${e}`));
  const machine = h("input", { type: "checkbox", id: "webhook-machine-scans" });
  const secretBox = h("div", { id: "webhook-secret-box", "aria-live": "polite" });
  const logBox = h("div", { id: "webhook-log" });
  const attemptsBox = h("div", { id: "delivery-attempts", "aria-live": "polite" });
  /** How many times a delivery's attempts were asked for: a log refresh asked before the latest one leaves them shown. */
  let attemptsAsked = 0;

  /** Every attempt the log keeps for one delivery: what the receiver answered each time (its text is shown as text). */
  async function showAttempts(webhookId: string, deliveryId: string): Promise<void> {
    attemptsAsked++;
    const d = await api("GET /webhooks/:webhookId/deliveries/:deliveryId", { params: { webhookId, deliveryId } });
    attemptsBox.replaceChildren(
      h("h4", { id: "delivery-attempts-h" }, `Attempts of ${deliveryId}`),
      table(
        ["Attempt", "Time", "Response", "Latency", "Answer (first 1 KB)"],
        (d.attemptLog ?? []).map((a) => [String(a.attempt), new Date(a.at).toLocaleString(), a.responseCode === null ? "no answer" : String(a.responseCode), `${a.latencyMs} ms`, h("code", { class: "answer" }, a.detail || "—")]),
        { id: "attempt-rows", caption: "Every attempt kept for this delivery" },
      ),
    );
  }
  const showSecret = (secret: string, what: string) =>
    secretBox.replaceChildren(h("p", { class: "notice" }, `${what} Copy it now: it is shown only once. `, h("code", { class: "key", id: "webhook-secret" }, secret)));

  async function showLog(webhookId: string): Promise<void> {
    const asked = attemptsAsked;
    const { deliveries } = await api("GET /webhooks/:webhookId/deliveries", { params: { webhookId } });
    const rows = deliveries.map((d) => [
      h("code", {}, d.deliveryId),
      d.type,
      h("span", { class: "delivery-status" }, d.status),
      String(d.attempts),
      d.last === null || d.last.responseCode === null ? "—" : String(d.last.responseCode),
      d.last ? `${d.last.latencyMs} ms` : "—",
      new Date(d.createdAt).toLocaleString(),
      h(
        "span",
        { class: "actions" },
        button("Attempts", () => showAttempts(webhookId, d.deliveryId), { class: "show-attempts", "aria-label": `Attempts of ${d.deliveryId}` }),
        button("Redeliver", async () => {
          await api("POST /webhooks/:webhookId/deliveries/:deliveryId/redeliver", { params: { webhookId, deliveryId: d.deliveryId }, body: {} });
          await showLog(webhookId);
        }, { class: "redeliver", "aria-label": `Redeliver ${d.deliveryId}` }),
      ),
    ]);
    logBox.replaceChildren(
      h("h3", { id: "webhook-log-h" }, `Deliveries of ${webhookId} (last 30 days)`),
      button("Refresh", () => showLog(webhookId), { id: "refresh-log" }),
      rows.length
        ? table(["Delivery", "Event", "Status", "Attempts", "Response", "Latency", "Created", ""], rows, { id: "delivery-rows", caption: "Delivery log" }, (i) => ({ "data-delivery-id": deliveries[i].deliveryId }))
        : h("p", { class: "muted" }, "No deliveries yet."),
      attemptsBox,
    );
    // A refresh answered after a delivery's attempts were opened does not close them.
    if (attemptsAsked === asked) attemptsBox.replaceChildren();
  }

  const rows = webhooks.map((w) => [
    h("span", { class: "webhook-url" }, w.url),
    w.events.join(", ") + (w.machineScans ? " (also bots and previews)" : ""),
    h("span", { class: "webhook-status" }, w.status === "disabled" && w.disabledReason ? `disabled: ${DISABLED_BECAUSE[w.disabledReason] ?? w.disabledReason}` : w.status),
    h(
      "span",
      { class: "actions" },
      button("Log", () => showLog(w.webhookId), { class: "show-log", "aria-label": `Delivery log of ${w.url}` }),
      button("Send test", async () => { await api("POST /webhooks/:webhookId/test", { params: { webhookId: w.webhookId }, body: {} }); await showLog(w.webhookId); }, { class: "send-test" }),
      button("Rotate secret", async () => {
        const r = await api("POST /webhooks/:webhookId/rotate-secret", { params: { webhookId: w.webhookId }, body: { overlapHours: 24 } });
        showSecret(r.secret, `New secret; the previous one also signs until ${new Date(r.previousValidUntil).toLocaleString()}.`);
      }, { class: "rotate" }),
      w.status === "disabled" ? button("Enable", async () => { await api("POST /webhooks/:webhookId/enable", { params: { webhookId: w.webhookId }, body: {} }); await render(); }, { class: "enable" }) : "",
      button("Delete", async () => { await api("DELETE /webhooks/:webhookId", { params: { webhookId: w.webhookId } }); await render(); }, { class: "revoke" }),
    ),
  ]);
  return h(
    "section",
    { id: "webhooks", "aria-labelledby": "webhooks-h" },
    h("h2", { id: "webhooks-h" }, "Webhooks"),
    h("p", { class: "muted" }, "Your systems hear about scans and code changes within seconds. Deliveries are signed (Standard Webhooks) and retried for a day."),
    h("div", { class: "form-row" }, url.wrap),
    h("fieldset", {}, h("legend", {}, "Events"), ...boxes, h("label", { class: "check" }, machine, " also scans by bots, link previews and HEAD requests")),
    h(
      "div",
      { class: "actions" },
      button("Add webhook", async () => {
        const ticked = new Set(boxes.map((l) => l.querySelector("input")!).filter((b) => b.checked).map((b) => b.value));
        const created = await api("POST /webhooks", { body: { url: url.input.value, events: EVENTS.filter((e) => ticked.has(e)), machineScans: machine.checked } });
        await render();
        const box = document.getElementById("webhook-secret-box");
        if (box) box.replaceChildren(h("p", { class: "notice" }, "Signing secret. Copy it now: it is shown only once. ", h("code", { class: "key", id: "webhook-secret" }, created.secret)));
      }, { id: "add-webhook", class: "primary" }),
    ),
    secretBox,
    rows.length ? table(["Endpoint", "Events", "Status", ""], rows, { id: "webhook-rows", caption: "Webhook endpoints" }, (i) => ({ "data-webhook-id": webhooks[i].webhookId })) : h("p", { class: "muted" }, "No webhooks yet."),
    logBox,
  );
}
