// Console page "Product codes (GS1)": the workspace's GS1 items (a GTIN or other GS1 key, optionally with a
// lot and a serial, and the links its GS1 Digital Link URI resolves to), as REST and the svc.gs1.* tools
// manage them (docs/gs1-resolver.md).
//   #/gs1            the list, and a form to register a product code
//   #/gs1/<itemId>   one item: its QR code for packaging (full or compressed URI, with the smallest print
//                    size), its links to edit, delete
// Link types are the GS1 Web Vocabulary's that the server accepts (gs1/linkTypes.ts); key types and their
// qualifiers are the server's table (gs1/keys.ts). Every rule is the server's: its refusals are shown.
import { send, type Answer, type Api, type Request } from "./api";
import { field, h, pendingImage, select, table } from "./dom";
import { messageFor, readAnswer } from "./errors";
import { saveBlob } from "./files";
import { ASSIGNABLE_LINK_TYPES } from "../functions/src/gs1/linkTypes";
import { PRIMARY_KEYS } from "../functions/src/gs1/keys";

export interface Gs1Kit {
  api: Api;
  authHeader: () => Promise<Record<string, string>>;
  act: (label: string, onClick: () => unknown, attrs?: Record<string, string>) => HTMLButtonElement;
  flash: (message: string, isError?: boolean) => void;
  render: () => Promise<void>;
}

type Item = Answer<"GET /gs1/items/:itemId">;
type ItemInput = Request<"POST /gs1/items">["body"];
type LinkInput = ItemInput["links"][number];

/** Names a shop owner reads; the vocabulary's own term is kept in the option's value. */
const LINK_TYPE_NAMES: Record<string, string> = {
  pip: "Product information page",
  epil: "Patient leaflet (ePIL)",
  smpc: "Product characteristics (SmPC)",
  dpp: "Digital product passport",
  jws: "Signed data (JWS)",
  epcis: "EPCIS events",
  faqs: "FAQs",
  hasRetailers: "Where to buy",
  smartLabel: "SmartLabel",
  purchaseSuppliesOrAccessories: "Supplies and accessories",
  consumerHandlingStorageInfo: "Handling and storage",
  productSustainabilityInfo: "Product sustainability",
};

export function linkTypeName(term: string): string {
  if (LINK_TYPE_NAMES[term]) return LINK_TYPE_NAMES[term];
  const words = term.replace(/([A-Z])/g, " $1").toLowerCase().replace(/\binfo\b/, "information");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const LINK_TYPE_OPTIONS = ASSIGNABLE_LINK_TYPES.map((t) => [`gs1:${t}`, linkTypeName(t)] as [string, string]).sort((a, b) => a[1].localeCompare(b[1]));

const QUALIFIER_NAMES: Record<string, string> = { "10": "lot", "21": "serial", "22": "variant (CPV)" };

/** "GTIN 09506000134352, lot LOT42". */
export function itemName(item: Pick<Item, "key" | "qualifiers">): string {
  const title = PRIMARY_KEYS.find((k) => k.ai === item.key.ai)?.title ?? `AI ${item.key.ai}`;
  return [`${title} ${item.key.value}`, ...item.qualifiers.map((q) => `${QUALIFIER_NAMES[q.ai] ?? `AI ${q.ai}`} ${q.value}`)].join(", ");
}

/**
 * A URI that wraps between its path's segments (after a "/"), not inside a GTIN or at an id's own "-";
 * a segment too long for a phone's line still wraps anywhere (the container is `.long`).
 */
function uriText(uri: string): Node[] {
  let chunks: string[];
  try {
    const url = new URL(uri);
    const segments = `${url.pathname.slice(1)}${url.search}`.split("/");
    chunks = [`${url.origin}/`, ...segments.map((seg, i) => (i < segments.length - 1 ? `${seg}/` : seg))].filter(Boolean);
  } catch {
    chunks = [uri];
  }
  return chunks.flatMap((chunk) => [chunk.length <= 24 ? h("span", { class: "seg" }, chunk) : document.createTextNode(chunk), h("wbr")]);
}

/** Opens another view with a notice on it (a view change clears the last view's notices first). */
function go(kit: Gs1Kit, hash: string, notice: string): void {
  window.addEventListener("hashchange", () => kit.flash(notice), { once: true });
  location.hash = hash;
}

let editors = 0;

/** The links of an item as rows of fields: link type, title, target, languages, media type, context, default. */
function linksEditor(kit: Gs1Kit, initial: Item["links"]): { element: HTMLElement; value: () => LinkInput[] } {
  const editor = ++editors;
  const list = h("div", { class: "gs1-links" });
  const readers = new WeakMap<Element, () => LinkInput>();
  let rows = 0;
  const split = (text: string) => text.split(",").map((s) => s.trim()).filter(Boolean);
  const addRow = (link?: Item["links"][number]) => {
    const n = ++rows;
    const id = (name: string) => `gs1-${editor}-${name}-${n}`;
    const type = field("Link type", select(id("type"), LINK_TYPE_OPTIONS));
    type.input.value = link?.linkType ?? "gs1:pip";
    const title = field("Title", h("input", { id: id("title"), value: link?.title ?? "" }));
    const href = field("Target URL", h("input", { id: id("href"), type: "url", placeholder: "https://", value: link?.href ?? "" }));
    const langs = field("Languages (optional)", h("input", { id: id("lang"), placeholder: "en, fr", value: (link?.hreflang ?? []).join(", ") }));
    const media = field("Media type (optional)", h("input", { id: id("media"), placeholder: "text/html", value: link?.type ?? "" }));
    const context = field("Context (optional)", h("input", { id: id("context"), placeholder: "GB", value: (link?.context ?? []).join(", ") }));
    const isDefault = h("input", { type: "radio", name: `gs1-${editor}-default`, id: id("default"), value: String(n) });
    isDefault.checked = link ? link.isDefault : list.children.length === 0;
    const row: HTMLFieldSetElement = h(
      "fieldset",
      { class: "gs1-link", "data-link": String(n) },
      h("legend", {}, `Link ${n}`),
      h("div", { class: "form-grid" }, type.wrap, title.wrap, href.wrap, langs.wrap, media.wrap, context.wrap),
      h(
        "div",
        { class: "actions" },
        h("label", { class: "check" }, isDefault, " Default link (where a plain scan goes)"),
        kit.act("Remove link", () => row.remove(), { class: "remove-link", "aria-label": `Remove link ${n}` }),
      ),
    );
    readers.set(row, () => {
      const out: LinkInput = { linkType: type.input.value, href: href.input.value.trim(), title: title.input.value.trim(), isDefault: isDefault.checked };
      if (split(langs.input.value).length) out.hreflang = split(langs.input.value);
      if (media.input.value.trim()) out.type = media.input.value.trim();
      if (split(context.input.value).length) out.context = split(context.input.value);
      return out;
    });
    list.append(row);
  };
  (initial.length ? initial : [undefined]).forEach((l) => addRow(l));
  const element = h(
    "div",
    {},
    h("p", { class: "muted" }, "Each link is a page shoppers can reach from the code; a scan goes to the default link unless it asks for another link type or language."),
    list,
    h("div", { class: "actions" }, kit.act("Add link", () => addRow(), { id: `gs1-${editor}-add-link` })),
  );
  return { element, value: () => [...list.children].flatMap((row) => readers.get(row)?.() ?? []) };
}

// ---- The list, and a new item -----------------------------------------------------------------------

export async function gs1ListView(kit: Gs1Kit, params: URLSearchParams): Promise<HTMLElement[]> {
  const cursor = params.get("cursor") ?? undefined;
  // The domains are read beside the items (the form's host picker, a brand host named on its items); without
  // them the page shows no picker and the form registers on the service's own host, as the API does.
  const [{ items, nextCursor }, domains] = await Promise.all([kit.api("GET /gs1/items", { query: { limit: 50, ...(cursor ? { cursor } : {}) } }), kit.api("GET /domains").catch(() => undefined)]);
  const rows = items.map((item) => {
    const main = item.links.find((l) => l.isDefault);
    // With a domain, the same GTIN may be listed once per host: every row names its host.
    const host = domains?.domains.length ? (domainOf(item, domains)?.hostnameUnicode ?? new URL(item.uri).hostname) : undefined;
    return [
      h(
        "span",
        {},
        h("a", { href: `#/gs1/${item.itemId}`, class: "gs1-name" }, itemName(item)),
        host ? h("span", { class: "muted gs1-host" }, h("br"), `on ${host}`) : "",
        item.description ? h("span", { class: "muted gs1-description" }, h("br"), item.description) : "",
      ),
      main ? h("span", {}, `${main.title} `, h("span", { class: "muted long" }, ...uriText(main.href))) : "",
      String(item.links.length),
      h(
        "span",
        { class: "actions" },
        h("a", { href: `#/gs1/${item.itemId}`, class: "button", "aria-label": `Open ${itemName(item)}` }, "Open"),
        kit.act("Delete", async () => {
          await kit.api("DELETE /gs1/items/:itemId", { params: { itemId: item.itemId } });
          kit.flash(`${itemName(item)} deleted: the resolver no longer serves its links.`);
          await kit.render();
        }, { class: "danger delete-gs1", "aria-label": `Delete ${itemName(item)}` }),
      ),
    ];
  });
  return [
    h("h1", { class: "page-title" }, "Product codes (GS1)"),
    h(
      "section",
      { id: "gs1-list", "aria-labelledby": "gs1-list-h" },
      h("h2", { id: "gs1-list-h" }, "Your products"),
      h("p", { class: "muted" }, "One QR code on the pack for the checkout scanner and the shopper: the scanner reads the product's GTIN, the shopper's phone opens the page you choose."),
      rows.length
        ? table(["Product", "Default link", "Links", ""], rows, { id: "gs1-items", caption: "GS1 product codes of this workspace" }, (i) => ({ "data-item-id": items[i].itemId }))
        : h("p", { class: "muted", id: "gs1-empty" }, cursor ? "No more product codes." : "No product codes yet. Add your first product below."),
      nextCursor ? h("p", {}, h("a", { href: `#/gs1?cursor=${encodeURIComponent(nextCursor)}`, id: "gs1-next" }, "Next page")) : "",
    ),
    newItemSection(kit, domains),
  ];
}

type Domains = Answer<"GET /domains">;

/** The workspace's domain whose host an item is registered on; none for the service's own host. */
function domainOf(item: Pick<Item, "uri">, domains: Domains | undefined): Domains["domains"][number] | undefined {
  const host = new URL(item.uri).hostname;
  return domains?.domains.find((d) => d.hostname === host);
}

/**
 * Where a new item's web address (and so its packaging code) points: the workspace's active domains and the
 * service's own host, the workspace default preselected as the code form does; none when no domain is active.
 */
function hostPicker(domains: Domains | undefined): { wrap: HTMLElement; input: HTMLSelectElement } | undefined {
  const active = (domains?.domains ?? []).filter((d) => d.state === "active");
  if (!active.length) return undefined;
  const pick = field("Host of its web address", select("gs1-domain", [["", "The service's own host"], ...active.map((d) => [d.domainId, d.hostnameUnicode] as [string, string])]));
  pick.input.value = active.some((d) => d.domainId === domains?.defaultDomainId) ? domains!.defaultDomainId! : "";
  // A row of its own: a host name is longer than the grid's other fields hold.
  pick.wrap.classList.add("gs1-host-field");
  return pick;
}

function newItemSection(kit: Gs1Kit, domains: Domains | undefined): HTMLElement {
  const keyType = field("Key type", select("gs1-key-type", PRIMARY_KEYS.map((k) => [k.name, k.title] as [string, string])));
  const value = field("Key with its check digit", h("input", { id: "gs1-value", inputmode: "numeric", autocomplete: "off" }));
  const lot = field("Lot (optional)", h("input", { id: "gs1-lot", autocomplete: "off" }));
  const serial = field("Serial (optional)", h("input", { id: "gs1-serial", autocomplete: "off" }));
  const description = field("Description (optional)", h("input", { id: "gs1-description" }));
  const host = hostPicker(domains);
  const links = linksEditor(kit, []);
  // Lot and serial are GTIN (and ITIP) qualifiers; other keys have others, which REST and MCP take.
  const showQualifiers = () => {
    const def = PRIMARY_KEYS.find((k) => k.name === keyType.input.value);
    const has = (ai: string) => Boolean(def?.qualifiers.some((q) => q.ai === ai));
    lot.wrap.hidden = !has("10");
    serial.wrap.hidden = !has("21");
  };
  keyType.input.addEventListener("change", showQualifiers);
  showQualifiers();
  const form = h(
    "form",
    { id: "gs1-new-form", "aria-labelledby": "gs1-new-h" },
    h("div", { class: "form-grid" }, keyType.wrap, value.wrap, lot.wrap, serial.wrap, description.wrap, host?.wrap ?? ""),
    host ? h("p", { class: "muted", id: "gs1-host-note" }, "On your own host, the packs you print carry your name, and only your workspace's products answer there. The same product on another host is another product code, with its own links.") : "",
    h("h3", {}, "Links"),
    links.element,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "gs1-save-new" }, "Save product code")),
  );
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- it catches every failure itself
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const submit = form.querySelector("button[type=submit]") as HTMLButtonElement;
    submit.disabled = true;
    try {
      const qualifiers = [
        ...(!lot.wrap.hidden && lot.input.value.trim() ? [{ ai: "10", value: lot.input.value.trim() }] : []),
        ...(!serial.wrap.hidden && serial.input.value.trim() ? [{ ai: "21", value: serial.input.value.trim() }] : []),
      ];
      const body: ItemInput = { key: keyType.input.value, value: value.input.value.trim(), links: links.value() };
      if (qualifiers.length) body.qualifiers = qualifiers;
      if (description.input.value.trim()) body.description = description.input.value.trim();
      if (host?.input.value) body.domainId = host.input.value;
      const saved = await kit.api("POST /gs1/items", { body });
      // The host, not the whole address (shown just below): a GTIN in running text would wrap inside itself on a phone.
      go(kit, `#/gs1/${saved.itemId}`, `${itemName(saved)} ${saved.created ? "registered" : "updated"} on ${new URL(saved.uri).hostname}: its code now leads to its links.`);
    } catch (err) {
      kit.flash(messageFor(err), true);
    } finally {
      submit.disabled = false;
    }
  });
  return h("section", { id: "gs1-new", "aria-labelledby": "gs1-new-h" }, h("h2", { id: "gs1-new-h" }, "Add a product code"), form);
}

// ---- One item ---------------------------------------------------------------------------------------

/** The item's QR code for packaging: full or compressed URI, its smallest print size, and the PNG to download. */
function packagingCode(kit: Gs1Kit, item: Item): HTMLElement {
  const { box, img } = pendingImage({ id: "gs1-qr", alt: `QR code for ${itemName(item)}`, width: "256", height: "256" });
  const note = h("p", { id: "gs1-qr-note", "aria-live": "polite" }, "Drawing the code…");
  const form = (value: string, label: string, checked: boolean) => {
    const radio = h("input", { type: "radio", name: "gs1-qr-form", value, id: `gs1-qr-${value}` });
    radio.checked = checked;
    radio.addEventListener("change", () => void draw());
    return h("label", { class: "check" }, radio, ` ${label}`);
  };
  const forms = h("fieldset", {}, h("legend", {}, "What the code holds"), form("full", "The full web address", true), form("compressed", "The compressed address (shorter, often a smaller code)", false));
  let shown: { blob: Blob; name: string } | undefined;
  let seq = 0;
  const draw = async () => {
    const compressed = (forms.querySelector("input:checked") as HTMLInputElement).value === "compressed";
    const mine = ++seq;
    shown = undefined;
    note.textContent = "Drawing the code…";
    const res = await send(kit.authHeader, "GET /gs1/items/:itemId/qr.png", { params: { itemId: item.itemId }, query: { compressed: compressed ? "true" : "false" } });
    if (mine !== seq) return;
    if (!res.ok) {
      note.textContent = `No code: ${await readAnswer(res).catch(messageFor)}`;
      note.className = "refused";
      return;
    }
    const blob = await res.blob();
    if (mine !== seq) return;
    if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
    img.src = URL.createObjectURL(blob);
    img.dataset.holds = res.headers.get("X-Gs1-Encoded-Uri") ?? "";
    const side = res.headers.get("X-Print-Min-Side-Mm");
    shown = { blob, name: `${item.key.name}-${item.key.value}${item.qualifiers.map((q) => `-${q.value}`).join("")}${compressed ? "-compressed" : ""}.png`.replace(/[^A-Za-z0-9._-]+/g, "_") };
    note.className = "";
    note.replaceChildren(
      h("strong", { id: "gs1-min-size" }, `Print it at least ${side} mm wide`),
      ` (white margin included) for checkout scanners; error correction ${res.headers.get("X-Gs1-Error-Correction")}. It holds `,
      h("span", { class: "long", id: "gs1-qr-text" }, ...uriText(res.headers.get("X-Gs1-Encoded-Uri") ?? "")),
      ".",
    );
  };
  void draw();
  return h(
    "section",
    { id: "gs1-packaging", "aria-labelledby": "gs1-packaging-h" },
    h("h2", { id: "gs1-packaging-h" }, "QR code for packaging"),
    h("p", { class: "muted" }, "Black on white, no logo, with a margin of four modules, as checkout scanners need; checked by two decoders before it is shown."),
    h(
      "div",
      { class: "create" },
      h(
        "div",
        {},
        forms,
        note,
        h(
          "div",
          { class: "actions" },
          kit.act("Download PNG", () => {
            if (!shown) throw new Error("The code is still being drawn. Wait a moment, then download it.");
            saveBlob(shown.blob, shown.name);
          }, { id: "gs1-download", class: "primary" }),
        ),
      ),
      h("figure", { class: "preview" }, box),
    ),
  );
}

/** The item's scans through the resolver over the last 30 days: people by the link type they were sent to. */
async function scansSection(kit: Gs1Kit, itemId: string): Promise<HTMLElement> {
  const a = await kit.api("GET /gs1/items/:itemId/analytics", { params: { itemId }, query: { days: 30 } });
  const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;
  return h(
    "section",
    { id: "gs1-scans", "aria-labelledby": "gs1-scans-h" },
    h("h2", { id: "gs1-scans-h" }, "Scans, last 30 days"),
    h(
      "p",
      {},
      `${plural(a.totalScans, "scan", "scans")} by ${plural(a.uniqueScanners, "person", "people")}.`,
      a.botScans.total
        ? ` ${plural(a.botScans.total, "request", "requests")} by machines counted apart${a.linksetFetches ? ` (${plural(a.linksetFetches, "linkset fetch", "linkset fetches")} by apps reading its links)` : ""}.`
        : "",
    ),
    a.byLinkType.length
      ? h("ol", { class: "gs1-link-scans" }, ...a.byLinkType.map((t) => h("li", {}, `${linkTypeName(t.linkType.replace(/^gs1:/, ""))}: ${plural(t.scans, "scan", "scans")}`)))
      : h("p", { class: "muted" }, "No one has scanned it yet. Scan the code above with your phone: it shows here within seconds."),
  );
}

export async function gs1ItemView(kit: Gs1Kit, itemId: string): Promise<HTMLElement[]> {
  // The domains are read beside the item: an item is a (host, key) pair, so saving its links names its host's
  // domain again; without it the links would be registered as another item on the service's own host.
  const [item, domains] = await Promise.all([kit.api("GET /gs1/items/:itemId", { params: { itemId } }), kit.api("GET /domains").catch(() => undefined)]);
  const links = linksEditor(kit, item.links);
  const domain = domainOf(item, domains);
  const body = (): ItemInput => {
    if (!item.onSharedHost && !domain) {
      throw new Error(
        domains
          ? `${new URL(item.uri).hostname} is no longer one of your domains, so this product code is not answered and its links cannot be saved. Add the domain again and verify it, or delete this product code.`
          : "Your domains could not be read, so this product code's host is not known. Reload the page, then save again.",
      );
    }
    return {
      key: item.key.ai,
      value: item.key.value,
      ...(item.qualifiers.length ? { qualifiers: item.qualifiers } : {}),
      ...(item.description ? { description: item.description } : {}),
      ...(domain ? { domainId: domain.domainId } : {}),
      links: links.value(),
    };
  };
  return [
    h("p", {}, h("a", { href: "#/gs1" }, "← All product codes")),
    h(
      "section",
      { id: "gs1-item", "aria-labelledby": "gs1-item-h" },
      h("h1", { id: "gs1-item-h", class: "long" }, itemName(item)),
      h(
        "dl",
        { class: "gs1-facts" },
        ...(item.description ? [h("dt", {}, "Description"), h("dd", {}, item.description)] : []),
        h("dt", {}, "GS1 Digital Link"),
        h("dd", {}, h("a", { href: item.uri, class: "long", id: "gs1-uri" }, ...uriText(item.uri))),
        ...(domain
          ? [h("dt", {}, "Host"), h("dd", { id: "gs1-host" }, `Your own, ${domain.hostnameUnicode}${domain.state === "active" ? "" : " (not active: its links can be changed once it is active again)"}`)]
          : []),
        h("dt", {}, "Updated"),
        h("dd", {}, new Date(item.updatedAt).toLocaleString()),
      ),
    ),
    packagingCode(kit, item),
    await scansSection(kit, itemId),
    h(
      "section",
      { id: "gs1-links", "aria-labelledby": "gs1-links-h" },
      h("h2", { id: "gs1-links-h" }, "Links"),
      links.element,
      h(
        "div",
        { class: "actions" },
        kit.act("Save links", async () => {
          await kit.api("POST /gs1/items", { body: body() });
          kit.flash("Links saved: the next scan uses them.");
          await kit.render();
        }, { id: "gs1-save-links", class: "primary" }),
        kit.act("Delete product code", async () => {
          await kit.api("DELETE /gs1/items/:itemId", { params: { itemId } });
          go(kit, "#/gs1", `${itemName(item)} deleted: the resolver no longer serves its links.`);
        }, { id: "gs1-delete", class: "danger" }),
      ),
    ),
  ];
}
