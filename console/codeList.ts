// The code list (#/codes): search, filters, sort and pages of 50, with each code's scans in the last 7
// and 30 days. The list's state lives in the URL's hash query, so reload, back and a shared link keep it.
import { CODE_SEARCH_MAX, JOB_MAX_ROWS } from "../functions/src/core/limits";
import { h, oneOf, select, table } from "./dom";
import { followJob, type Job } from "./jobs";
import type { Answer, Api, Request } from "./api";

/** What a code's download buttons need. */
export type CodeFiles = Pick<Answer<"GET /codes/:codeId">, "title" | "qrImageUrl" | "qrSvgUrl" | "qrPdfUrl">;
type ListedCode = Answer<"GET /codes">["codes"][number];

export interface ListContext {
  api: Api;
  act: (label: string, onClick: () => unknown, attrs?: Record<string, string>) => HTMLButtonElement;
  downloads: (code: CodeFiles) => HTMLElement;
}

/** Codes picked for a print package (id -> title), kept across pages, filters and searches until cleared. */
const picked = new Map<string, string>();
/** A print package of the picked codes is being built: its job, shown again when the list is drawn again. */
let packaging: { jobId: string; count: number } | null = null;

/**
 * The selection's bar: how many codes are picked, picking the whole page, and a print package (an SVG and
 * a 30 mm PDF per code, A4 label sheets and a manifest) built in the background from the picked codes.
 */
function selectionBar(ctx: ListContext, pageCodes: ListedCode[], boxes: HTMLInputElement[]): HTMLElement {
  const count = h("span", { id: "selection-count", "aria-live": "polite" });
  const progress = h("progress", { id: "selection-progress", max: "100", value: "0", "aria-label": "Print package progress", hidden: "" }) as HTMLProgressElement;
  const status = h("p", { id: "selection-status", role: "status" });
  const result = h("div", { id: "selection-result" });
  const print = ctx.act(
    "Print package (ZIP)",
    async () => {
      const codeIds = [...picked.keys()];
      print.disabled = true;
      result.replaceChildren();
      const job = await ctx.api("POST /jobs", { body: { format: "codes", codeIds, print: { sideMm: 30, sheets: { paper: "a4" } } } });
      packaging = { jobId: job.jobId, count: codeIds.length };
      await follow(job);
    },
    { id: "print-selected", class: "primary" },
  );
  const follow = async (job: Pick<Job, "jobId" | "state">) => {
    progress.hidden = false;
    const done = await followJob((jobId) => ctx.api("GET /jobs/:jobId", { params: { jobId } }), job, (now) => {
      progress.value = now.state === "packaging" ? Math.max(now.progress, 50) : now.progress / 2;
      status.textContent = `Building the print package of ${now.total} codes…`;
    });
    packaging = null;
    progress.hidden = true;
    status.textContent =
      done.state === "done"
        ? `The print package is ready: ${done.reused} codes${done.failed ? `; ${done.failed} were not found (deleted since they were picked)` : ""}.`
        : `The print package could not be built: ${done.note ?? "an error"}. Try again.`;
    if (done.packageUrl) result.replaceChildren(h("a", { href: done.packageUrl, id: "selection-package", class: "button", download: "" }, "Download the print package (ZIP)"));
    refresh();
  };
  /** A changed selection is a new package to build: the last one's outcome no longer describes it. */
  const changed = () => {
    if (packaging) return;
    status.textContent = "";
    result.replaceChildren();
    refresh();
  };
  const refresh = () => {
    const n = picked.size;
    count.textContent = n ? `${n} code${n === 1 ? "" : "s"} picked for printing.` : "Pick codes to print them together.";
    print.disabled = n === 0 || n > JOB_MAX_ROWS || packaging !== null;
    if (n > JOB_MAX_ROWS) count.textContent += ` A package holds at most ${JOB_MAX_ROWS.toLocaleString("en")}.`;
  };
  const pickPage = ctx.act("Pick this page", () => {
    for (const c of pageCodes) picked.set(c.codeId, c.title);
    boxes.forEach((b) => (b.checked = true));
    changed();
  }, { id: "pick-page" });
  const clear = ctx.act("Clear", () => {
    picked.clear();
    boxes.forEach((b) => (b.checked = false));
    changed();
  }, { id: "pick-clear" });
  boxes.forEach((box) => box.addEventListener("change", changed));
  refresh();
  if (packaging) void follow({ jobId: packaging.jobId, state: "running" });
  return h("div", { class: "selection", id: "code-selection", role: "group", "aria-label": "Print several codes" }, count, h("span", { class: "actions" }, pickPage, clear, print), progress, status, result);
}

type ListQuery = NonNullable<Request<"GET /codes">["query"]>;

/** The list's sorts: the value the URL keeps, its label, and what the API is asked for. */
const SORT_CHOICES: Array<{ value: string; label: string; query: Pick<ListQuery, "sort" | "order"> }> = [
  { value: "created:desc", label: "Newest first", query: { sort: "created", order: "desc" } },
  { value: "created:asc", label: "Oldest first", query: { sort: "created", order: "asc" } },
  { value: "title:asc", label: "Title A to Z", query: { sort: "title", order: "asc" } },
  { value: "title:desc", label: "Title Z to A", query: { sort: "title", order: "desc" } },
  { value: "scans7:desc", label: "Most scans, 7 days", query: { sort: "scans7", order: "desc" } },
  { value: "scans30:desc", label: "Most scans, 30 days", query: { sort: "scans30", order: "desc" } },
];
const SORTS: Array<[string, string]> = SORT_CHOICES.map((c) => [c.value, c.label]);

/** Cursors of the pages before this one, so "Previous page" works without the server keeping state. */
const earlier: string[] = [];
/** Typing re-renders the list: the search box gets the focus back where the person left it. */
let refocusSearch = false;

/** A long text cut in its middle ("https://shop.example/…/menu?table=4"), the full text on hover and focus. */
export function middleCut(text: string, max = 34): HTMLElement {
  if (text.length <= max) return h("span", { class: "url" }, text);
  const head = Math.ceil((max - 1) * 0.6);
  const tail = max - 1 - head;
  const cut = `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
  return h(
    "span",
    { class: "url mid", tabindex: "0", title: text },
    h("span", { "aria-hidden": "true" }, cut),
    h("span", { class: "pop" }, text),
  );
}

export const badge = (kind: string, text: string) => h("span", { class: `badge badge-${kind}` }, text);

function readState(params: URLSearchParams) {
  return {
    q: params.get("q") ?? "",
    kind: params.get("kind") ?? "",
    status: params.get("status") ?? "",
    campaign: params.get("campaign"),
    sort: SORTS.some(([v]) => v === params.get("sort")) ? params.get("sort")! : "created:desc",
    cursor: params.get("cursor") ?? "",
  };
}

type State = ReturnType<typeof readState>;

function toHash(state: State): string {
  const p = new URLSearchParams();
  if (state.q) p.set("q", state.q);
  if (state.kind) p.set("kind", state.kind);
  if (state.status) p.set("status", state.status);
  if (state.campaign !== null) p.set("campaign", state.campaign);
  if (state.sort !== "created:desc") p.set("sort", state.sort);
  if (state.cursor) p.set("cursor", state.cursor);
  const q = p.toString();
  return `#/codes${q ? `?${q}` : ""}`;
}

function apiQuery(state: State): ListQuery {
  const query: ListQuery = { ...SORT_CHOICES.find((c) => c.value === state.sort)?.query, limit: 50 };
  if (state.q.trim()) query.q = state.q.trim();
  query.kind = oneOf(["static", "dynamic"] as const, state.kind);
  query.status = oneOf(["draft", "published"] as const, state.status);
  if (state.campaign !== null) query.campaign = state.campaign;
  if (state.cursor) query.cursor = state.cursor;
  return query;
}

export async function codeListView(ctx: ListContext, params: URLSearchParams): Promise<HTMLElement[]> {
  const state = readState(params);
  if (!state.cursor) earlier.length = 0;
  const started = performance.now();
  const page = await ctx.api("GET /codes", { query: apiQuery(state) });
  const go = (change: Partial<State>) => {
    const next = { ...state, cursor: "", ...change };
    if (!("cursor" in change)) earlier.length = 0;
    location.hash = toHash(next);
  };

  const search = h("input", { type: "search", id: "code-search", value: state.q, placeholder: "Title, URL or tag", maxlength: String(CODE_SEARCH_MAX), autocomplete: "off" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      refocusSearch = true;
      go({ q: search.value });
    }, 300);
  });
  if (refocusSearch) {
    refocusSearch = false;
    // After the view is in the document (route() inserts it once this function's promise settles).
    setTimeout(() => {
      search.focus();
      search.setSelectionRange(search.value.length, search.value.length);
    }, 0);
  }
  const kind = select("code-kind", [["", "All kinds"], ["static", "Static"], ["dynamic", "Dynamic"]]);
  kind.value = state.kind;
  kind.addEventListener("change", () => go({ kind: kind.value }));
  const status = select("code-status-filter", [["", "Any status"], ["published", "Published"], ["draft", "Draft"]]);
  status.value = state.status;
  status.addEventListener("change", () => go({ status: status.value }));
  const campaigns = page.campaigns;
  // "\u0000": every campaign; "": codes without one. Option values must be strings.
  const campaign = select("code-campaign", [["\u0000", "All campaigns"], ["", "No campaign"], ...campaigns.map((c) => [c, c] as [string, string])]);
  campaign.value = state.campaign ?? "\u0000";
  campaign.addEventListener("change", () => go({ campaign: campaign.value === "\u0000" ? null : campaign.value }));
  const sort = select("code-sort", SORTS);
  sort.value = state.sort;
  sort.addEventListener("change", () => go({ sort: sort.value }));
  const labelled = (text: string, control: HTMLElement) => h("div", { class: "field" }, h("label", { for: control.id }, text), control);

  const filters = h(
    "form",
    { class: "toolbar", role: "search", "aria-label": "Find codes", id: "code-filters" },
    labelled("Search", search),
    labelled("Kind", kind),
    labelled("Status", status),
    labelled("Campaign", campaign),
    labelled("Sort", sort),
  );
  filters.addEventListener("submit", (e) => {
    e.preventDefault();
    clearTimeout(timer);
    go({ q: search.value });
  });

  const codes = page.codes;
  const first = earlier.length * 50 + 1;
  const filtered = Boolean(state.q || state.kind || state.status || state.campaign !== null);
  // A search's total is not counted (that would read every code): the pages tell whether more follow.
  const range = `${first}–${first + codes.length - 1}`;
  const summary = !codes.length
    ? ""
    : page.total === null
      ? `Showing ${range} ${filtered ? "matching " : ""}codes${page.nextCursor ? "; more on the next page" : ""}.`
      : `Showing ${range} of ${page.total} ${filtered ? "matching " : ""}code${page.total === 1 ? "" : "s"}.`;
  const boxes = codes.map((c) => {
    const box = h("input", { type: "checkbox", class: "pick", "aria-label": `Pick ${c.title} for printing`, ...(picked.has(c.codeId) ? { checked: "" } : {}) }) as HTMLInputElement;
    box.addEventListener("change", () => (box.checked ? picked.set(c.codeId, c.title) : picked.delete(c.codeId)));
    return box;
  });
  const rows = codes.map((c, i) => [
    h("span", { class: "pick-cell" }, boxes[i], h("img", { class: "thumb", src: c.qrImageUrl, alt: "", width: "56", height: "56", loading: "lazy" })),
    h("div", { class: "code-cell" }, h("a", { href: `#/code/${c.codeId}`, class: "code-title" }, c.title), middleCut(c.destinationUrl)),
    badge(c.dynamic ? "dynamic" : "static", c.dynamic ? "dynamic" : "static"),
    h("span", { class: "code-status" }, badge(c.status, c.status)),
    h("span", { class: "num", "data-scans7": String(c.scans7) }, String(c.scans7)),
    h("span", { class: "num", "data-scans30": String(c.scans30) }, String(c.scans30)),
    ctx.downloads(c),
  ]);

  const pager = h("div", { class: "actions pager", role: "group", "aria-label": "Pages" });
  if (state.cursor) {
    pager.append(
      h("a", { class: "button", id: "page-first", href: toHash({ ...state, cursor: "" }) }, "First page"),
      ...(earlier.length
        ? [
            (() => {
              const prev = h("button", { type: "button", id: "page-prev" }, "Previous page");
              prev.addEventListener("click", () => {
                const cursor = earlier.pop() ?? "";
                location.hash = toHash({ ...state, cursor });
              });
              return prev;
            })(),
          ]
        : []),
    );
  }
  if (page.nextCursor) {
    const next = h("button", { type: "button", id: "page-next", class: "primary" }, "Next page");
    next.addEventListener("click", () => {
      earlier.push(state.cursor);
      location.hash = toHash({ ...state, cursor: page.nextCursor ?? "" });
    });
    pager.append(next);
  }

  const empty =
    page.workspaceTotal === 0
      ? h(
          "div",
          { class: "empty", id: "codes-empty" },
          h("p", {}, "No codes yet. Start with one:"),
          h(
            "ul",
            {},
            h("li", {}, h("a", { href: "#/new" }, "Make a QR code"), " and print it."),
            h("li", {}, h("a", { href: "#/import" }, "Import a spreadsheet"), " of links."),
            h("li", {}, "Or let an agent draft codes with svc.qr.create; you publish them here."),
          ),
        )
      : h("p", { class: "empty", id: "codes-empty" }, "No code matches. Try fewer words or ", h("a", { href: "#/codes" }, "clear the filters"), ".");

  return [
    h(
      "section",
      { id: "codes", "aria-labelledby": "codes-title", "data-load-ms": String(Math.round(performance.now() - started)) },
      h("div", { class: "section-head" }, h("h1", { id: "codes-title" }, "QR codes"), h("a", { href: "#/new", class: "button primary", id: "new-code-link" }, "New QR code")),
      filters,
      h("p", { class: "muted", id: "codes-summary", "aria-live": "polite" }, summary),
      ...(codes.length ? [selectionBar(ctx, codes, boxes)] : []),
      codes.length
        ? table(["Print", "Code", "Kind", "Status", "Scans 7 days", "Scans 30 days", "Files"], rows, { id: "code-rows", caption: "Your QR codes" }, (i) => ({ "data-code-id": codes[i].codeId }))
        : empty,
      pager,
    ),
  ];
}
