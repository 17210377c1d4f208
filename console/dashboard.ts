// The console's home (#/): the workspace's scans for a chosen range (people and unique people), the codes
// scanned most, places, devices and the busiest hours, each saying what to do first when it is empty.
import { barChart } from "./chart";
import { h } from "./dom";
import { insights } from "./insights";
import type { Api } from "./api";

export const DASHBOARD_RANGES = [7, 30, 90, 365];

export async function dashboardView(api: Api, days: number): Promise<HTMLElement[]> {
  const d = await api("GET /dashboard", { query: { days } });
  const counts = d.codeCounts;
  const ranges = h(
    "div",
    { class: "ranges", role: "group", "aria-label": "Date range" },
    ...DASHBOARD_RANGES.map((n) =>
      h("a", { class: `button${n === days ? " current" : ""}`, href: `#/?days=${n}`, ...(n === days ? { "aria-current": "true" } : {}) }, `${n} days`),
    ),
  );
  const figures = h(
    "dl",
    { class: "figures", id: "dash-figures" },
    h("dt", {}, "Scans by people"),
    h("dd", { id: "dash-scans" }, String(d.totalScans)),
    h("dt", {}, "Unique scanners"),
    h("dd", { id: "dash-unique" }, String(d.uniqueScanners)),
    h("dt", {}, "Repeats and bots (not counted)"),
    h("dd", { id: "dash-uncounted" }, String(d.repeatScans + d.botScans.total)),
    ...(d.endedScans.total ? [h("dt", {}, "Campaigns closed (not counted)"), h("dd", { id: "dash-ended" }, String(d.endedScans.total))] : []),
    h("dt", {}, "Codes"),
    h("dd", { id: "dash-codes" }, `${counts.total}`),
    h("dt", {}, "Drafts to review"),
    h("dd", { id: "dash-drafts" }, counts.drafts ? h("a", { href: "#/codes?status=draft" }, String(counts.drafts)) : "0"),
  );

  if (counts.total === 0) {
    return [
      h(
        "section",
        { id: "dashboard", "aria-labelledby": "dash-title" },
        h("h1", { id: "dash-title" }, "Welcome"),
        h(
          "div",
          { class: "empty", id: "dash-empty" },
          h("p", {}, "Your workspace has no QR codes yet. Scans, places, devices and busy hours appear here once people scan them. Start with one of these:"),
          h(
            "ul",
            {},
            h("li", {}, h("a", { href: "#/new", id: "dash-first-code" }, "Make your first QR code"), ": type a link, see the code, print it."),
            h("li", {}, h("a", { href: "#/import" }, "Import a spreadsheet"), " of links to make many at once."),
            h("li", {}, h("a", { href: "#/settings" }, "Create an API key"), " so an agent can draft codes for you to publish."),
          ),
        ),
      ),
    ];
  }

  const top = d.topCodes;
  const topCodes = h(
    "div",
    { class: "insight", id: "dash-top-codes" },
    h("h2", {}, "Most scanned codes"),
    top.length
      ? h(
          "ol",
          {},
          ...top.map((c) =>
            h("li", {}, h("a", { href: c.codeId.startsWith("gs1_") ? `#/gs1/${c.codeId.slice(4)}` : `#/code/${c.codeId}`, class: "insight-name" }, c.title ?? c.codeId), " ", h("span", { class: "insight-count" }, `${c.scans} (${c.uniqueScanners} unique)`)),
          ),
        )
      : h("p", { class: "muted" }, "No scans in this range. Print a dynamic code and scan it with your phone: it shows here within seconds."),
  );

  return [
    h(
      "section",
      { id: "dashboard", "aria-labelledby": "dash-title" },
      h("div", { class: "section-head" }, h("h1", { id: "dash-title" }, `Last ${days} days`), h("a", { href: "#/new", class: "button primary" }, "New QR code")),
      ranges,
      figures,
      d.totalScans
        ? barChart(d.byDay, "Scans per day")
        : h(
            "p",
            { class: "empty", id: "dash-no-scans" },
            "No scans by people in this range. Only dynamic codes count scans: ",
            h("a", { href: "#/new" }, "make a dynamic code"),
            " or re-point an existing one, then scan it with your phone.",
          ),
      topCodes,
    ),
    h("section", { id: "dash-insights", "aria-labelledby": "dash-insights-title" }, h("h2", { id: "dash-insights-title" }, "Places, devices and hours"), insights(d, { figures: false })),
  ];
}
