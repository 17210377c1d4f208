// What the inline app draws from a tool result's structuredContent. Pure DOM from data the host hands
// over: nothing is fetched, and text always goes in as text nodes. Links leave through `open`, which
// asks the host (ui/open-link); the app never publishes anything itself.
import QRCode from "qrcode";
import { h } from "../console/dom";
import { barChart } from "../console/chart";

export type OpenLink = (url: string) => void;

function linkButton(label: string, url: string, open: OpenLink, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = h("button", { type: "button", "data-url": url, ...attrs }, label);
  b.addEventListener("click", () => open(url));
  return b;
}

function statusBadge(status: string): HTMLElement {
  return h("span", { class: `badge ${status === "published" ? "live" : "draft"}`, id: "status" }, status === "published" ? "Published" : "Draft: not live until published");
}

function publishNote(status: string, consoleUrl: string | undefined, open: OpenLink, what: string): HTMLElement {
  if (status === "published" || !consoleUrl) return h("p", { class: "note" }, `This ${what} is published.`);
  return h(
    "p",
    { class: "note" },
    `A person publishes this ${what} in the console. `,
    linkButton("Open in console to publish", consoleUrl, open, { id: "open-console", class: "primary" }),
  );
}

interface Code {
  codeId: string;
  title: string;
  destinationUrl: string;
  dynamic: boolean;
  dynamicLink: string | null;
  status: string;
  qrImageUrl: string;
  qrSvgUrl: string;
  consoleUrl?: string;
  design?: { foreground: string; background: string; quietZone: number } | null;
}

/** The code as drawn here from what it encodes (the link for a dynamic code), with its file downloads. */
export function codeView(code: Code, open: OpenLink): HTMLElement {
  const encoded = code.dynamicLink ?? code.destinationUrl;
  const qr = QRCode.create(encoded, { errorCorrectionLevel: "M" });
  const preview = h("div", { class: "qr", id: "qr-preview", role: "img", "aria-label": `QR code for ${encoded}` });
  preview.append(drawModules(qr.modules, code.design?.foreground ?? "#000000", code.design?.background ?? "#FFFFFF", code.design?.quietZone ?? 4));
  return h(
    "article",
    { class: "card", id: "code-card" },
    h("header", {}, h("h1", { id: "code-title" }, code.title), statusBadge(code.status)),
    h("div", { class: "row" }, preview, h(
      "dl",
      {},
      h("dt", {}, "Opens"),
      h("dd", { id: "destination" }, code.destinationUrl),
      h("dt", {}, code.dynamic ? "Dynamic link (re-pointable, counts scans)" : "Static code"),
      h("dd", { id: "encoded" }, encoded),
    )),
    h(
      "p",
      { class: "actions" },
      linkButton("Download PNG", code.qrImageUrl, open, { id: "download-png" }),
      linkButton("Download SVG (print)", code.qrSvgUrl, open, { id: "download-svg" }),
    ),
    publishNote(code.status, code.consoleUrl, open, "code"),
  );
}

/** The matrix as one SVG path (no image is loaded). */
function drawModules(modules: { size: number; get(r: number, c: number): number }, fg: string, bg: string, quiet: number): SVGElement {
  const NS = "http://www.w3.org/2000/svg";
  const size = modules.size + quiet * 2;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.setAttribute("shape-rendering", "crispEdges");
  const back = document.createElementNS(NS, "rect");
  back.setAttribute("width", String(size));
  back.setAttribute("height", String(size));
  back.setAttribute("fill", bg);
  let d = "";
  for (let r = 0; r < modules.size; r++) for (let c = 0; c < modules.size; c++) if (modules.get(r, c)) d += `M${c + quiet} ${r + quiet}h1v1h-1z`;
  const path = document.createElementNS(NS, "path");
  path.setAttribute("d", d);
  path.setAttribute("fill", fg);
  svg.append(back, path);
  return svg;
}

interface Analytics {
  codeId: string;
  days: number;
  from: string;
  to: string;
  timeZone: string;
  totalScans: number;
  uniqueScanners: number;
  botScans: { total: number };
  byDay: Array<{ date: string; scans: number }>;
  countries: Array<{ country: string; scans: number }>;
  devices: Array<{ device: string; scans: number }>;
  consoleUrl?: string;
}

const top = (id: string, title: string, rows: Array<[string, number]>) =>
  h("section", {}, h("h2", {}, title), rows.length ? h("ol", { id }, ...rows.slice(0, 5).map(([name, n]) => h("li", {}, `${name}: ${n}`))) : h("p", { id }, "None yet"));

/** Scans per day over the window, with its range and totals. */
export function scansView(a: Analytics, open: OpenLink): HTMLElement {
  return h(
    "article",
    { class: "card", id: "scan-card" },
    h("header", {}, h("h1", {}, `Scans of ${a.codeId}`), h("span", { class: "badge", id: "range" }, `${a.from} to ${a.to} (${a.days} days, ${a.timeZone})`)),
    h(
      "p",
      { class: "figures" },
      h("strong", { id: "total-scans" }, String(a.totalScans)),
      " scans by ",
      h("strong", { id: "unique-scanners" }, String(a.uniqueScanners)),
      ` unique scanners; ${a.botScans.total} bot scans counted apart.`,
    ),
    barChart(a.byDay, `Scans per day, ${a.from} to ${a.to}`),
    h("div", { class: "row" }, top("top-countries", "Countries", a.countries.map((c) => [c.country, c.scans])), top("top-devices", "Devices", a.devices.map((d) => [d.device, d.scans]))),
    a.consoleUrl ? h("p", { class: "actions" }, linkButton("Open in console", a.consoleUrl, open, { id: "open-console" })) : "",
  );
}

interface Menu {
  name: string;
  description: string | null;
  status: string;
  sections: Array<{ name: string; items: Array<{ name: string; description: string | null; price: number | null }> }>;
  consoleUrl?: string;
}

/** The menu as guests would read it. */
export function menuView(m: Menu, open: OpenLink): HTMLElement {
  const price = (p: number | null) => (p === null ? "" : p.toFixed(2));
  return h(
    "article",
    { class: "card menu", id: "menu-card" },
    h("header", {}, h("h1", { id: "menu-name" }, m.name), statusBadge(m.status)),
    m.description ? h("p", {}, m.description) : "",
    ...(m.sections.length
      ? m.sections.map((s) =>
          h(
            "section",
            { class: "menu-section" },
            h("h2", {}, s.name),
            h("ul", {}, ...s.items.map((i) => h("li", {}, h("span", { class: "item" }, i.name), h("span", { class: "price" }, price(i.price)), i.description ? h("small", {}, i.description) : ""))),
          ),
        )
      : [h("p", { class: "empty", id: "menu-empty" }, "No items yet: add them with svc.menu.add_item.")]),
    publishNote(m.status, m.consoleUrl, open, "menu"),
  );
}
