// A code's conversions on its page (docs/attribution-figures.md): the funnel from scans to revenue, and
// for each A/B split every arm's conversion rate with its 95% interval and the verdict in words. Revenue
// stays per currency: 12.00 EUR and 1,200 JPY are two figures, never one sum.
import type { Api, Answer } from "./api";
import type { ConsoleKit } from "./connectedApps";
import { field, h, table } from "./dom";

type Figures = Answer<"GET /codes/:codeId/conversions">;
type AbTest = Figures["abTests"][number];

/** Minor units as the currency writes them: 36997 USD is "$369.97", 1200 JPY "¥1,200". */
export function money(minor: number, currency: string): string {
  const format = new Intl.NumberFormat("en-US", { style: "currency", currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** digits);
}

const revenueText = (revenue: Record<string, number>) => {
  const parts = Object.entries(revenue).filter(([, v]) => v !== 0).sort(([a], [b]) => a.localeCompare(b)).map(([c, v]) => money(v, c));
  return parts.length ? parts.join(", ") : "none";
};
const pct = (x: number | null) => (x === null ? "–" : `${(x * 100).toFixed(1)}%`);
const count = (n: number) => n.toLocaleString("en-US");

function funnel(f: Figures): HTMLElement {
  const step = (label: string, id: string, value: string, note = "") => [h("dt", {}, label), h("dd", { id }, value, ...(note ? [h("span", { class: "muted rate-note" }, ` ${note}`)] : []))];
  const rate = (part: number, whole: number) => (whole > 0 ? `(${pct(part / whole)} of people)` : "");
  return h(
    "dl",
    { class: "figures funnel", id: "funnel" },
    ...step("Scans", "funnel-scans", count(f.total.scans)),
    ...step("People", "funnel-people", count(f.total.people)),
    ...step("Leads", "funnel-leads", count(f.total.leads), rate(f.total.leads, f.total.people)),
    ...step("Sales", "funnel-sales", count(f.total.sales), rate(f.total.sales, f.total.people)),
    ...step("Revenue", "funnel-revenue", revenueText(f.total.revenue)),
  );
}

const NS = "http://www.w3.org/2000/svg";
const svg = (tag: string, attrs: Record<string, string | number>): SVGElement => {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
};

/**
 * The interval drawn on one 0-to-`max` scale shared by the split's arms, so overlapping intervals are seen
 * to overlap. SVG attributes, not inline styles: the console's CSP allows no style attribute.
 */
function intervalBar(low: number | null, high: number | null, rate: number | null, max: number): Element {
  if (low === null || high === null || rate === null) return h("span", { class: "muted" }, "no people yet");
  const at = (x: number) => Math.min(100, (x / max) * 100);
  const bar = svg("svg", { viewBox: "0 0 100 10", preserveAspectRatio: "none", class: "ci", role: "img", "aria-label": `95% interval ${pct(low)} to ${pct(high)}, rate ${pct(rate)}` });
  bar.append(svg("rect", { x: 0, y: 3, width: 100, height: 4, class: "ci-track" }), svg("rect", { x: at(low), y: 2, width: Math.max(0.5, at(high) - at(low)), height: 6, class: "ci-range" }), svg("rect", { x: Math.max(0, at(rate) - 0.5), y: 0, width: 1, height: 10, class: "ci-point" }));
  return bar;
}

const STATE_WORDS: Record<AbTest["arms"][number]["state"], string> = {
  control: "baseline",
  collecting: "collecting",
  no_difference: "no clear difference",
  better: "converts better",
  worse: "converts worse",
};

function abResult(t: AbTest, i: number, urls: Map<string, string | null>): HTMLElement {
  const max = Math.max(0.05, ...t.arms.map((a) => a.high ?? 0)) * 1.1;
  const rows = t.arms.map((a) => [
    h("span", { class: "arm" }, a.label, ...(urls.get(a.arm) ? [h("span", { class: "muted long url" }, urls.get(a.arm)!)] : [])),
    `${count(a.successes)} / ${count(a.trials)}`,
    h("strong", {}, pct(a.rate)),
    h("span", { class: "ci-cell" }, h("span", {}, `${pct(a.low)} – ${pct(a.high)}`), intervalBar(a.low, a.high, a.rate, max)),
    STATE_WORDS[a.state],
  ]);
  const what = t.metric === "sales" ? "Sales" : "Leads";
  return h(
    "div",
    { class: "ab-result", id: `ab-${i}` },
    h("h3", {}, t.name ? `A/B split “${t.name}”` : t.rule === null ? "A/B split" : `A/B split (rule ${t.rule + 1})`),
    h("p", { class: t.atHorizon && t.arms.some((a) => a.state === "better" || a.state === "worse") ? "notice verdict" : "verdict", id: `ab-${i}-verdict`, role: "status" }, t.verdict),
    table(["Arm", `${what} / people`, "Rate", "95% interval", "Result"], rows, { id: `ab-${i}-arms`, caption: `Conversion rate of each arm of the split` }),
    h(
      "p",
      { class: "muted" },
      `The rate is ${t.metric} over people who scanned. The test compares each arm with the first and is read once every arm has ${count(t.horizon)} people (fixed in advance, so looking early cannot make a false winner); until then the intervals show how sure each rate is.`,
    ),
  );
}

export async function conversionSection(api: Api, codeId: string, days: number): Promise<HTMLElement> {
  const f = await api("GET /codes/:codeId/conversions", { params: { codeId }, query: { days } });
  const days_ = f.byDay.filter((d) => d.leads || d.sales || Object.keys(d.revenue).length);
  return h(
    "section",
    { id: "code-conversions", "aria-labelledby": "conversions-h" },
    h("h2", { id: "conversions-h" }, `Conversions from ${f.from} to ${f.to}`),
    funnel(f),
    ...f.abTests.map((t, i) => abResult(t, i, new Map(f.byArm.map((a) => [a.arm, a.url])))),
    days_.length
      ? table(
          ["Day", "Leads", "Sales", "Revenue"],
          days_.slice(-14).reverse().map((d) => [d.day, count(d.leads), count(d.sales), revenueText(d.revenue)]),
          { id: "conversion-days", caption: "Leads, sales and revenue per day" },
        )
      : h("p", { class: "muted" }, "No leads or sales in this range yet. Turn on conversion tracking, then send leads and sales with the click id, or connect your Shopify shop."),
  );
}

type TrackingSettings = Answer<"GET /tracking/settings">;

/**
 * Settings → Conversion tracking (docs/attribution.md, "Settings"): the workspace's choice for codes whose
 * own and campaign settings leave it open, the click id's parameter name, the attribution window and the
 * first-party cookie, with the consent it needs said next to it.
 */
export async function trackingSection({ api, h: el, button }: ConsoleKit): Promise<HTMLElement> {
  const on = el("input", { type: "checkbox", id: "track-conversions" });
  const cookie = el("input", { type: "checkbox", id: "track-cookie", "aria-describedby": "track-cookie-note" });
  const param = field("Click id parameter", el("input", { id: "track-param", type: "text", maxlength: "32", autocomplete: "off", spellcheck: "false" }));
  const days = field("Days a scan gets credit for sales (1 to 90)", el("input", { id: "track-window", type: "number", min: "1", max: "90", step: "1", inputmode: "numeric" }));
  const status = el("p", { class: "muted", id: "tracking-status", role: "status" });
  const show = (s: TrackingSettings) => {
    on.checked = s.trackConversions;
    cookie.checked = s.firstPartyCookie;
    param.input.value = s.clickIdParam;
    days.input.value = String(s.windowDays);
  };
  show(await api("GET /tracking/settings"));
  const save = async () => {
    const windowDays = Number(days.input.value);
    const saved = await api("POST /tracking/settings", { body: { trackConversions: on.checked, clickIdParam: param.input.value.trim(), windowDays, firstPartyCookie: cookie.checked } });
    show(saved);
    status.textContent = saved.trackConversions
      ? `Saved. Tracked codes add ${saved.clickIdParam} to their destination; sales count up to ${saved.windowDays} days after the scan.`
      : "Saved. Tracking is off, except for codes or campaigns that turn it on.";
  };
  return el(
    "section",
    { id: "tracking-settings", "aria-labelledby": "tracking-h" },
    el("h2", { id: "tracking-h" }, "Conversion tracking"),
    el("p", { class: "muted" }, "A tracked code adds a signed click id to its destination, so your site, till or shop can report leads and sales against the scan. A code or its campaign can decide otherwise."),
    el("label", { class: "check" }, on, " Track conversions of every code"),
    el("div", { class: "form-row" }, param.wrap, days.wrap),
    el("label", { class: "check" }, cookie, " Also keep the click id in a cookie on my own domains"),
    el("p", { class: "muted", id: "track-cookie-note" }, "A tracking cookie needs your visitors' consent (or another legal basis) before you turn it on."),
    el("div", { class: "actions" }, button("Save tracking settings", save, { id: "save-tracking", class: "primary" })),
    status,
  );
}

/**
 * Settings → Shopify: connect a shop with the secret Shopify signs its webhooks with (sent once, never
 * shown again), the topics and address to paste into Shopify, and disconnecting (docs/shopify.md).
 */
export async function shopifySection({ api, h: el, button, render }: ConsoleKit): Promise<HTMLElement> {
  const { shops, max } = await api("GET /shopify/shops");
  const domain = field("Shop address (name.myshopify.com)", el("input", { id: "shop-domain", type: "text", placeholder: "your-shop.myshopify.com", autocomplete: "off" }));
  const secret = field("Webhook signing secret", el("input", { id: "shop-secret", type: "password", autocomplete: "off" }));
  const rows = shops.map((s) => [
    el("code", {}, s.shopDomain),
    new Date(s.createdAt).toLocaleDateString(),
    button("Disconnect", async () => { await api("DELETE /shopify/shops/:shopDomain", { params: { shopDomain: s.shopDomain } }); await render(); }, { class: "danger", "aria-label": `Disconnect ${s.shopDomain}` }),
  ]);
  const where = shops[0] ?? null;
  return el(
    "section",
    { id: "shopify-shops", "aria-labelledby": "shopify-h" },
    el("h2", { id: "shopify-h" }, "Shopify orders"),
    el("p", { class: "muted" }, `Paid orders become sales of the code the buyer scanned; refunds and cancellations take them back. Up to ${max} shops.`),
    rows.length ? table(["Shop", "Connected", ""], rows, { id: "shop-rows", caption: "Connected Shopify shops" }) : el("p", { class: "muted" }, "No shop connected."),
    where
      ? el("p", { class: "notice", id: "shopify-steps" }, `In Shopify, under Settings › Notifications › Webhooks, create one webhook for each of ${where.topics.join(", ")}, format JSON, sent to `, el("code", { class: "long" }, where.webhookUrl), ".")
      : "",
    el(
      "div",
      { class: "form-row" },
      domain.wrap,
      secret.wrap,
      button("Connect shop", async () => {
        await api("POST /shopify/shops", { body: { shopDomain: domain.input.value, webhookSecret: secret.input.value } });
        await render();
      }, { id: "connect-shop", class: "primary" }),
    ),
  );
}
