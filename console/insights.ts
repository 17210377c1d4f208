// What a merchant learns from a code's (or the workspace's) scans beyond the daily chart: people and
// unique people, repeats and machines kept apart, places, devices, and the busiest hours of the week in
// the workspace's time zone. Plain lists and a heat grid that fit a phone's width.
import { h } from "./dom";
import type { Answer } from "./api";
import { dnsText } from "./domains";

/** The figures the insights show: a code's analytics and the workspace's dashboard both have them. */
type Figures = Pick<
  Answer<"GET /analytics">,
  "totalScans" | "uniqueScanners" | "repeatScans" | "botScans" | "endedScans" | "byUtm" | "byHost" | "countries" | "regions" | "cities" | "devices" | "operatingSystems" | "browsers" | "hourByWeekday" | "timeZone" | "pending" | "lagSeconds"
> & { byRule?: Answer<"GET /codes/:codeId/analytics">["byRule"] };

/** Why a closed campaign answered, in words (campaigns/: the `e` reasons). */
const ENDED_REASONS: Record<string, string> = { "not-started": "not started yet", ended: "after its end", capped: "cap reached", "cap-busy": "asked to retry" };

const VARIANT_LETTERS = "ABCD";

/** People's scans per campaign rule and A/B variant: which rule answered how many, in the rules' order. */
function ruleTable(rows: NonNullable<Figures["byRule"]>): HTMLElement {
  const lines = rows.flatMap((r) => [
    h(
      "tr",
      {},
      h("th", { scope: "row" }, r.rule === null ? "No rule matched (destination)" : `Rule ${r.rule + 1}${r.name ? `: ${r.name}` : ""}`),
      h("td", { class: "num" }, String(r.scans)),
    ),
    ...r.variants.map((v) =>
      h(
        "tr",
        { class: "variant" },
        h("th", { scope: "row" }, `Variant ${VARIANT_LETTERS[v.variant] ?? v.variant + 1}`, v.url ? h("span", { class: "muted url" }, ` ${v.url}`) : ""),
        h("td", { class: "num" }, `${v.scans} (${r.scans ? Math.round((v.scans / r.scans) * 100) : 0}%)`),
      ),
    ),
  ]);
  return h(
    "div",
    { class: "insight wide", id: "by-rule" },
    h("h3", {}, "Scans by campaign rule"),
    h("table", {}, h("caption", { class: "muted" }, "People's scans each rule answered; rules counted by their place in the list when scanned"), h("tbody", {}, ...lines)),
  );
}

/** People's scans per host the link was opened on: shown once people came through more than one (the service's own and a brand's). */
function hostTable(rows: Figures["byHost"]): HTMLElement {
  return h(
    "div",
    { class: "insight wide", id: "by-host" },
    h("h3", {}, "Scans by link host"),
    h(
      "table",
      {},
      h("caption", { class: "muted" }, "Where people opened the code's link; a person counts once a day, on the host of their first scan"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Host"), h("th", { scope: "col", class: "num" }, "Scans"), h("th", { scope: "col", class: "num" }, "Unique"))),
      h("tbody", {}, ...rows.map((r) => h("tr", {}, h("th", { scope: "row", class: "host" }, ...dnsText(r.host)), h("td", { class: "num" }, String(r.scans)), h("td", { class: "num" }, String(r.uniqueScanners))))),
    ),
  );
}

const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

function topList<R extends { scans: number }>(title: string, rows: readonly R[], label: (r: R) => string, id: string): HTMLElement {
  const shown = rows.slice(0, 5);
  return h(
    "div",
    { class: "insight", id },
    h("h3", {}, title),
    shown.length ? h("ol", {}, ...shown.map((r) => h("li", {}, h("span", { class: "insight-name" }, label(r)), " ", h("span", { class: "insight-count" }, String(r.scans))))) : h("p", { class: "muted" }, "None yet."),
  );
}

/** The 7 × 24 grid as shaded cells; the numbers are in each cell's label and in the busiest-times list. */
function hourGrid(grid: number[][], timeZone: string): HTMLElement {
  const max = Math.max(1, ...grid.flat());
  const cells: HTMLElement[] = [];
  grid.forEach((hours, d) => {
    cells.push(h("span", { class: "grid-day" }, WEEKDAYS[d]));
    hours.forEach((n, hour) => {
      const level = n === 0 ? 0 : Math.ceil((n / max) * 4);
      cells.push(h("span", { class: `grid-cell level-${level}`, title: `${WEEKDAYS[d]} ${String(hour).padStart(2, "0")}:00: ${n} scans` }));
    });
  });
  const busiest = grid
    .flatMap((hours, d) => hours.map((n, hour) => ({ d, hour, n })))
    .filter((c) => c.n > 0)
    .sort((a, b) => b.n - a.n)
    .slice(0, 3)
    .map((c) => `${WEEKDAYS[c.d]} ${String(c.hour).padStart(2, "0")}:00 (${c.n})`);
  return h(
    "div",
    { class: "insight wide", id: "hour-grid" },
    h("h3", {}, `Busiest hours (${timeZone})`),
    h("div", { class: "grid", role: "img", "aria-label": busiest.length ? `Busiest hours: ${busiest.join(", ")}` : "No scans yet" }, ...cells),
    h("p", { class: "muted" }, busiest.length ? `Busiest: ${busiest.join(" · ")}` : "No scans in this range yet."),
  );
}

/** Said while the figures are still catching up (the scan consumer lags, or the newest shards were left for the fold). */
function catchingUp(a: Figures): HTMLElement | string {
  if (!a.pending) return "";
  const behind = a.lagSeconds ? ` (about ${a.lagSeconds} s behind)` : "";
  return h("p", { class: "notice", id: "catching-up", role: "status" }, `Still catching up${behind}: the newest scans are counted within moments. Reload to see them.`);
}

/** `figures: false` where the page already shows the scan totals (the dashboard). */
export function insights(a: Figures, options: { figures?: boolean } = {}): HTMLElement {
  const bots = Object.entries(a.botScans.byReason)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(", ");
  const ended = Object.entries(a.endedScans.byReason)
    .map(([reason, n]) => `${ENDED_REASONS[reason] ?? reason} ${n}`)
    .join(", ");
  return h(
    "div",
    { class: "insights", id: "insights" },
    catchingUp(a),
    options.figures === false
      ? ""
      : h(
          "dl",
          { class: "figures" },
          h("dt", {}, "Scans by people"),
          h("dd", { id: "fig-scans" }, String(a.totalScans)),
          h("dt", {}, "Unique scanners"),
          h("dd", { id: "fig-unique" }, String(a.uniqueScanners)),
          h("dt", {}, "Repeats (not counted)"),
          h("dd", { id: "fig-repeats" }, String(a.repeatScans)),
          h("dt", {}, "Bots and previews (not counted)"),
          h("dd", { id: "fig-bots" }, bots ? `${a.botScans.total}: ${bots}` : "0"),
          ...(a.endedScans.total ? [h("dt", {}, "Campaign closed (not counted)"), h("dd", { id: "fig-ended" }, `${a.endedScans.total}: ${ended}`)] : []),
        ),
    a.byRule?.length ? ruleTable(a.byRule) : "",
    a.byHost.length > 1 ? hostTable(a.byHost) : "",
    a.byUtm.length ? topList("Campaign source / medium", a.byUtm, (r) => `${r.source} / ${r.medium}`, "top-utm") : "",
    topList("Countries", a.countries, (r) => r.country, "top-countries"),
    topList("Regions", a.regions, (r) => `${r.region}, ${r.country}`, "top-regions"),
    ...(a.cities ? [topList("Cities", a.cities, (r) => `${r.city}, ${r.region}`, "top-cities")] : []),
    topList("Devices", a.devices, (r) => r.device, "top-devices"),
    topList("Operating systems", a.operatingSystems, (r) => r.os, "top-os"),
    topList("Browsers", a.browsers, (r) => r.browser, "top-browsers"),
    hourGrid(a.hourByWeekday, a.timeZone),
  );
}
