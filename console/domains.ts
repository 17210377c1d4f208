// Console page "Domains" (#/domains): the workspace's branded domains (docs/domains.md) through the console's
// routes (functions/src/console/domainRoutes.ts), which answer what REST and svc.domain.* answer. The owner
// adds a host, copies the records to create at the DNS host, verifies and removes, and chooses the default
// domain for new codes, where a host's home page sends people and the colours of its pages; members read. Every
// sentence about what is wrong is the server's (`problem`, `notice`): the page only arranges them.
import type { Answer, Api } from "./api";
import { field, h, table } from "./dom";
import { messageFor, ShownError } from "./errors";

export interface DomainsKit {
  api: Api;
  act: (label: string, onClick: () => unknown, attrs?: Record<string, string>) => HTMLButtonElement;
  flash: (message: string, isError?: boolean) => void;
  render: () => Promise<void>;
  /** Only the workspace's owner may change domains: members get the page without its controls. */
  owner: boolean;
}

type Domain = Answer<"GET /domains/:domainId">;
type DomainRecord = Domain["records"][number];

/** Each state as a shop owner reads it, in a badge. */
const STATE_LABELS: Record<Domain["state"], string> = {
  pending: "Waiting for DNS",
  verifying: "Ownership proven",
  cert_pending: "Certificate on its way",
  active: "Active",
  invalid: "Needs attention",
  detached: "Detached",
};

/** A heading for what is wrong; the sentence under it (`problem`) says what to do. */
const REASON_TITLES: Record<NonNullable<Domain["reason"]>, string> = {
  txt_missing: "The TXT record is gone",
  txt_stale: "The TXT record holds an old value",
  serving_missing: "The serving record is gone",
  points_elsewhere: "The host points elsewhere",
  proxied: "The record goes through a proxy",
  caa_forbids: "A CAA record forbids the certificate",
  cert_timeout: "No certificate yet",
  cert_failed: "The certificate could not be issued",
  host_taken: "Another workspace uses this host",
};

const day = (iso: string) => new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "long", day: "numeric" });
const moment = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** The page: the add form (owner), then one card per domain, oldest first. */
export async function domainsView(kit: DomainsKit): Promise<HTMLElement[]> {
  const { domains, count, max, defaultDomainId, rootUrl, pageColours } = await kit.api("GET /domains");
  const intro = h(
    "p",
    { class: "muted" },
    "Put your codes on a host of your own, such as scan.yourbrand.com. Add it here, create the records shown at the company that runs your domain's DNS, then verify. The service checks every domain again each hour.",
  );
  const head = h("section", { id: "domains", "aria-labelledby": "domains-h" }, h("h1", { id: "domains-h" }, "Domains"), intro, kit.owner ? addForm(kit, count, max) : h("p", { class: "muted", id: "domains-owner-only" }, "Only the workspace's owner can add, verify or remove domains."));
  const cards = domains.map((d) => domainCard(kit, d));
  if (!cards.length) return [head, h("section", { id: "no-domains" }, h("p", { class: "muted" }, "No domains yet: your codes use the service's own host."))];
  return [head, hostSettings(kit, domains, defaultDomainId, rootUrl, pageColours), ...cards];
}

type PageColours = Answer<"GET /domains">["pageColours"];

/**
 * The workspace's choices for all its hosts: the domain new dynamic codes go on (active ones, or the
 * service's own host), where a visit to a host's home page (`/`) is sent, and the colours of the pages its
 * hosts show when nothing is at an address. Members see them as text.
 */
function hostSettings(kit: DomainsKit, domains: Domain[], defaultDomainId: string | null, rootUrl: string | null, pageColours: PageColours): HTMLElement {
  const active = domains.filter((d) => d.state === "active");
  const current = defaultDomainId ? domains.find((d) => d.domainId === defaultDomainId) : undefined;
  const section = h("section", { id: "host-settings", "aria-labelledby": "host-settings-h" }, h("h2", { id: "host-settings-h" }, "For all your hosts"));
  if (!kit.owner) {
    section.append(
      h("p", { id: "default-domain-text" }, `New dynamic codes go on ${current?.state === "active" ? current.hostnameUnicode : "the service's own host"}.`),
      h("p", { id: "root-url-text", class: "long" }, rootUrl ? `A visit to a host's home page goes to ${rootUrl}.` : "A visit to a host's home page shows a \"not found\" page in your shop's name."),
      h("p", { id: "page-colours-text" }, pageColours ? `Your hosts' pages show text in ${pageColours.foreground} on ${pageColours.background}.` : "Your hosts' pages use the plain look, with your shop's name."),
    );
    return section;
  }
  const options: Array<[string, string]> = [["", "The service's own host"], ...active.map((d): [string, string] => [d.domainId, d.hostnameUnicode])];
  // A default that has since stopped being active stays shown, so the owner sees why codes use the service's host.
  if (current && current.state !== "active") options.push([current.domainId, `${current.hostnameUnicode} (not active: codes use the service's host)`]);
  const pick = field("Default domain for new dynamic codes", h("select", { id: "default-domain" }, ...options.map(([value, label]) => h("option", { value }, label))));
  pick.input.value = current ? current.domainId : "";
  const defaultForm = h(
    "form",
    { id: "default-domain-form", "aria-label": "Default domain" },
    h("div", { class: "form-row" }, pick.wrap, h("button", { type: "submit", id: "save-default-domain" }, "Save default")),
    h("p", { class: "muted" }, active.length ? "Codes made earlier keep their host; a code can still name another domain, or none." : "A domain can be the default once it is active."),
  );
  submitting(defaultForm, async () => {
    const saved = await kit.api("POST /domains/default", { body: { domainId: pick.input.value || null } });
    await kit.render();
    const name = domains.find((d) => d.domainId === saved.defaultDomainId)?.hostnameUnicode;
    kit.flash(name ? `New dynamic codes go on ${name}.` : "New dynamic codes go on the service's own host.");
  }, kit);

  const url = field("Home page of your hosts", h("input", { id: "root-url", type: "url", inputmode: "url", autocomplete: "url", spellcheck: "false", placeholder: "https://www.example.com/", maxlength: "2048", value: rootUrl ?? "" }));
  url.wrap.classList.add("url-field");
  const rootForm = settingForm(
    "root-url-form",
    "Home page of your hosts",
    [url.wrap, h("button", { type: "submit", id: "save-root-url" }, "Save"), ...(rootUrl ? [kit.act("Clear", () => saveRootUrl(kit, null), { id: "clear-root-url" })] : [])],
    "Where someone who opens a host without a code's path (https://scan.example.com/) is sent. Without one, they see a \"not found\" page in your shop's name.",
  );
  submitting(rootForm, () => saveRootUrl(kit, url.input.value.trim() || null), kit);
  section.append(defaultForm, rootForm, coloursForm(kit, pageColours));
  return section;
}

/** One setting's form: its fields and buttons in a row, and a sentence saying what it does. */
function settingForm(id: string, label: string, row: HTMLElement[], says: string): HTMLFormElement {
  return h("form", { id, "aria-label": label }, h("div", { class: "form-row" }, ...row), h("p", { class: "muted" }, says));
}

/** The colours of the pages the hosts show when nothing is at an address (docs/gs1-on-brand-hosts.md). */
function coloursForm(kit: DomainsKit, pageColours: PageColours): HTMLFormElement {
  const text = field("Text colour", h("input", { type: "color", id: "page-fg", value: (pageColours?.foreground ?? "#111111").toLowerCase() }));
  const page = field("Page colour", h("input", { type: "color", id: "page-bg", value: (pageColours?.background ?? "#FFFFFF").toLowerCase() }));
  const form = settingForm(
    "page-colours-form",
    "Colours of your hosts' pages",
    [text.wrap, page.wrap, h("button", { type: "submit", id: "save-page-colours" }, "Save colours"), ...(pageColours ? [kit.act("Use the plain look", () => savePageColours(kit, null), { id: "clear-page-colours" })] : [])],
    "When nothing is at an address on your hosts (a code that was removed, a mistyped link), people see a page with your shop's name in these colours. The text must be easy to read on the page colour.",
  );
  submitting(form, () => savePageColours(kit, { foreground: text.input.value, background: page.input.value }), kit);
  return form;
}

async function savePageColours(kit: DomainsKit, pageColours: PageColours): Promise<void> {
  const saved = await kit.api("POST /domains/page-colours", { body: { pageColours } });
  await kit.render();
  kit.flash(saved.pageColours ? "Your hosts' pages now use your colours." : "Your hosts' pages now use the plain look, with your shop's name.");
}

/** Whether a home page is a web address the service takes (it checks again, and answers in API terms). */
function isWebAddress(value: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

async function saveRootUrl(kit: DomainsKit, rootUrl: string | null): Promise<void> {
  // Said here in a shop owner's words; the service's refusal names its API field.
  if (rootUrl !== null && !isWebAddress(rootUrl)) throw new ShownError("The home page must be a web address starting with https:// or http://, such as https://www.example.com/.");
  const saved = await kit.api("POST /domains/root-url", { body: { rootUrl } });
  await kit.render();
  kit.flash(saved.rootUrl ? `Your hosts' home page now sends people to ${saved.rootUrl}.` : "Your hosts' home page now shows a \"not found\" page in your shop's name.");
}

/** A form, so Enter in a field submits too: `run` goes once at a time (the button is disabled meanwhile); a failure is flashed. */
function submitting(form: HTMLFormElement, run: () => Promise<void>, kit: DomainsKit): void {
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const submit = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
    submit.disabled = true;
    void run()
      .catch((err: unknown) => kit.flash(messageFor(err), true))
      .finally(() => (submit.disabled = false));
  });
}

function addForm(kit: DomainsKit, count: number, max: number): HTMLElement {
  const host = field("Host name", h("input", { id: "domain-host", type: "text", inputmode: "url", autocomplete: "off", spellcheck: "false", placeholder: "scan.example.com" }));
  host.wrap.classList.add("host-field");
  const form = h(
    "form",
    { id: "add-domain-form", "aria-labelledby": "add-domain-h" },
    h("h2", { id: "add-domain-h" }, "Add a domain"),
    h("div", { class: "form-row" }, host.wrap, h("button", { type: "submit", class: "primary", id: "add-domain" }, "Add domain")),
    h("p", { class: "muted" }, `A sub-domain (scan.example.com) or a whole domain (example.com). ${count} of ${max} domains in use.`),
  );
  submitting(form, async () => {
    const added = await kit.api("POST /domains", { body: { hostname: host.input.value.trim() } });
    await kit.render();
    kit.flash(`Added ${added.hostnameUnicode}. Create the records shown under it at your DNS host, then press "Verify".`);
    focusCard(added.domainId);
  }, kit);
  return form;
}

/** One domain: its name and state, what is wrong (or awaited), its notices, its records, its actions. */
function domainCard(kit: DomainsKit, d: Domain): HTMLElement {
  const headingId = `domain-${d.domainId}-h`;
  const copied = h("p", { class: "muted copy-status", role: "status" });
  const confirmBox = h("div", { class: "confirm-box" });
  return h(
    "section",
    { class: "domain-card", "data-domain-id": d.domainId, "data-state": d.state, "aria-labelledby": headingId },
    h(
      "div",
      { class: "section-head" },
      h("h2", { id: headingId, class: "long", tabindex: "-1" }, d.hostnameUnicode),
      h("span", { class: `badge badge-domain-${d.state}`, "data-state": d.state }, STATE_LABELS[d.state]),
    ),
    ...(d.hostnameUnicode !== d.hostname ? [h("p", { class: "muted long" }, `In DNS: ${d.hostname}`)] : []),
    ...status(d),
    h("h3", {}, "Records to create at your DNS host"),
    ...(d.recordsNote ? [h("p", { class: "apex-note" }, d.recordsNote)] : []),
    recordsTable(kit, d, copied),
    h("p", { class: "muted" }, "If your DNS host adds your domain to the names itself, enter only the part of the name before it."),
    copied,
    h("p", { class: "muted checked" }, d.checkedAt ? `Last checked ${moment(d.checkedAt)}.` : "Not checked yet."),
    ...(kit.owner
      ? [
          h(
            "div",
            { class: "actions" },
            kit.act("Verify", () => verify(kit, d), { class: "primary verify", "aria-label": `Verify ${d.hostnameUnicode}` }),
            kit.act("Remove", () => askRemove(kit, d, confirmBox), { class: "remove", "aria-label": `Remove ${d.hostnameUnicode}` }),
          ),
          confirmBox,
        ]
      : []),
  );
}

/**
 * What the owner reads under the name: the server's notice (the mailed text: since when, and the detach
 * date) and what is wrong now. The notice holds the problem it was written with, so the problem is shown
 * again only when it has changed since.
 */
function status(d: Domain): HTMLElement[] {
  const out: HTMLElement[] = [];
  const wrong = d.state === "invalid" || d.state === "detached";
  if (d.reason && wrong) out.push(h("p", { class: "reason" }, h("strong", {}, REASON_TITLES[d.reason])));
  if (d.notice) out.push(h("p", { class: "error domain-notice", role: "status" }, h("strong", {}, `Notice of ${day(d.notice.at)}`), h("br"), ...keepDates(d.notice.text)));
  else if (d.state === "detached" && d.detachedAt) out.push(h("p", { class: "error domain-notice" }, `Detached on ${day(d.detachedAt)}: codes on it are served on the service's own host until it verifies again.`));
  else if (d.state === "invalid" && d.invalidSince) out.push(h("p", { class: "error domain-notice" }, `Not verifying since ${day(d.invalidSince)}.`));
  if (d.problem && !d.notice?.text.includes(d.problem)) out.push(h("p", { class: wrong ? "domain-problem row-error" : "domain-problem" }, d.problem));
  if (d.state === "active") out.push(h("p", { class: "domain-problem" }, `Active since ${day(d.activatedAt ?? d.createdAt)}: codes can use this host.`));
  return out;
}

/** The records as a table (blocks on a phone), each name and value with a button that copies it. */
function recordsTable(kit: DomainsKit, d: Domain, copied: HTMLElement): HTMLElement {
  const copy = (r: DomainRecord, what: "name" | "value") =>
    h(
      "span",
      { class: "copyable" },
      h("code", { class: `long record-${what}` }, ...dnsText(r[what])),
      kit.act("Copy", async () => {
        await navigator.clipboard.writeText(r[what]);
        copied.textContent = `Copied the ${what} of the ${r.type} record.`;
      }, { class: "copy", "aria-label": `Copy ${r.type} ${what}` }),
    );
  const rows = d.records.map((r) => [h("code", { class: "record-type" }, r.type), copy(r, "name"), copy(r, "value"), h("span", { class: "muted" }, r.purpose)]);
  const records = table(["Type", "Name", "Value", "What it is for"], rows, { caption: `DNS records for ${d.hostnameUnicode}` }, (i) => ({ "data-record-type": d.records[i].type }));
  records.classList.add("records");
  return records;
}

/** The server's sentence with its dates (2026-12-29) kept on one line: a date is not cut at its hyphens. */
function keepDates(text: string): Array<Node | string> {
  return text.split(/(\d{4}-\d{2}-\d{2})/).map((part, i) => (i % 2 ? h("span", { class: "seg" }, part) : part));
}

/**
 * A DNS name or value that wraps after a dot (or a TXT value's "="), never inside a label ("_svc-" and
 * "verify" stay together); a part too long for a phone's line (a 63-letter label) still wraps anywhere.
 */
export function dnsText(text: string): Node[] {
  return text.split(/(?<=[.=])/).flatMap((part) => [part.length <= 32 ? h("span", { class: "seg" }, part) : document.createTextNode(part), h("wbr")]);
}

async function verify(kit: DomainsKit, d: Domain): Promise<void> {
  const checked = await kit.api("POST /domains/:domainId/verify", { params: { domainId: d.domainId }, body: {} });
  await kit.render();
  // The card says what is wrong; the notice says the check ran (the card may be below the fold on a phone).
  kit.flash(`Checked ${checked.hostnameUnicode}: ${STATE_LABELS[checked.state]}.`, checked.state === "invalid");
  focusCard(checked.domainId);
}

/** After a re-render the pressed button is gone: focus goes to its domain's name. */
function focusCard(domainId: string): void {
  document.querySelector<HTMLElement>(`[data-domain-id="${domainId}"] h2`)?.focus();
}

/** Removing asks first, in place: what removing does, and a button that does it. */
function askRemove(kit: DomainsKit, d: Domain, box: HTMLElement): void {
  const yes = kit.act("Yes, remove it", async () => {
    await kit.api("DELETE /domains/:domainId", { params: { domainId: d.domainId } });
    await kit.render();
    kit.flash(`Removed ${d.hostnameUnicode}. Its host is free; adding it again gives a new TXT value.`);
  }, { class: "danger confirm-remove" });
  box.replaceChildren(
    h(
      "div",
      { class: "notice", role: "group", "aria-label": `Remove ${d.hostnameUnicode}?` },
      h("p", {}, `Remove ${d.hostnameUnicode}? Its host is freed for other workspaces, and adding it again needs a new TXT record value.`),
      h("div", { class: "actions" }, yes, kit.act("Keep it", () => box.replaceChildren(), { class: "cancel-remove" })),
    ),
  );
  yes.focus();
}
