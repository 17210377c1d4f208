// Scans per day as an SVG bar chart with a dated axis and a y-axis maximum; the numbers are also given as
// text (the accessible name and a hidden table), so the chart is not the only way to read them.
import { h } from "./dom";

const NS = "http://www.w3.org/2000/svg";
function s(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

const label = (date: string, span: number) => {
  const d = new Date(`${date}T00:00:00Z`);
  return d.toLocaleDateString(undefined, span > 120 ? { month: "short", year: "2-digit", timeZone: "UTC" } : { month: "short", day: "numeric", timeZone: "UTC" });
};

export function barChart(byDay: Array<{ date: string; scans: number }>, title: string): HTMLElement {
  const W = 600;
  const H = 140;
  const max = Math.max(1, ...byDay.map((d) => d.scans));
  const total = byDay.reduce((n, d) => n + d.scans, 0);
  const bw = W / Math.max(1, byDay.length);
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", class: "chart", role: "img", "aria-label": `${title}: ${total} scans from ${byDay[0]?.date} to ${byDay.at(-1)?.date}, at most ${max} in a day` });
  svg.append(s("line", { x1: 0, y1: H - 0.5, x2: W, y2: H - 0.5, class: "axis" }));
  byDay.forEach((d, i) => {
    const bh = ((H - 4) * d.scans) / max;
    const bar = s("rect", { x: i * bw + bw * 0.1, y: H - bh, width: Math.max(0.5, bw * 0.8), height: bh, class: "bar", "data-date": d.date, "data-scans": d.scans });
    bar.append(s("title", {}, `${d.date}: ${d.scans}`));
    svg.append(bar);
  });
  // Axis labels are HTML, so they keep a readable size however wide the chart is drawn. Every day for a
  // week, else five dates spread evenly (first and last included).
  const ticks = byDay.length <= 7 ? byDay.map((_, i) => i) : [0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(f * (byDay.length - 1)));
  const xAxis = h("div", { class: "chart-x", "aria-hidden": "true" }, ...ticks.map((i) => h("span", { class: "date-tick" }, label(byDay[i].date, byDay.length))));
  const yAxis = h("div", { class: "chart-y", "aria-hidden": "true" }, h("span", {}, String(max)), h("span", {}, "0"));
  const rows = byDay.filter((d) => d.scans > 0).map((d) => h("tr", {}, h("td", {}, d.date), h("td", {}, String(d.scans))));
  // Tables do not shrink to 1 px, so the hiding class goes on a wrapper.
  const data = h(
    "div",
    { class: "sr-only" },
    h("table", {}, h("caption", {}, title), h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Date"), h("th", { scope: "col" }, "Scans"))), h("tbody", {}, ...rows)),
  );
  const plot = h("div", { class: "chart-plot" });
  plot.append(svg as unknown as Node);
  return h("figure", { class: "chart-box" }, yAxis, plot, h("span", {}), xAxis, data);
}
