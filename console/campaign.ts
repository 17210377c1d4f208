// Campaign rules of a dynamic code (issue 38, docs/campaign-rules.md) on the code page, and the workspace's
// UTM templates in Settings.
//   - The editor: ordered rules (first match wins), each a name, conditions, and an action; the code's
//     schedule, people's scans cap, fallback URL, UTM template and password (write-only). Rare conditions
//     (a rule's own time zone, anything the form has no control for) live in "Advanced (JSON)", which
//     round-trips what it is given.
//   - "Try a sample scan": the editor's current, unsaved settings tried on a scan described by hand
//     (POST /codes/:codeId/campaign/preview: the server's own evaluator; nothing is recorded), said in words.
// Every rule is the server's: what it refuses is shown as sentences naming the rule and field.
import { send, type Answer, type Request } from "./api";
import { field, h, select, table } from "./dom";
import { answerMessage } from "./errors";
import type { Gs1Kit as Kit } from "./gs1";

type Settings = Request<"POST /codes/:codeId/campaign">["body"];
type RuleInput = Settings["rules"][number];
type When = RuleInput["when"];
type Then = RuleInput["then"];
type Editor = Answer<"GET /codes/:codeId/campaign">;
type Preview = Answer<"POST /codes/:codeId/campaign/preview">;
type Template = Answer<"GET /utm-templates">["templates"][number];

const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
const WEEKDAY_NAMES: Record<string, string> = { mon: "Mon", tue: "Tue", wed: "Wed", thu: "Thu", fri: "Fri", sat: "Sat", sun: "Sun" };
const ACTIONS: Array<[Then["type"], string]> = [
  ["redirect", "Send to a URL"],
  ["split", "A/B split over 2 to 4 URLs"],
  ["password", "Ask for a password"],
  ["ended", "Show the “campaign has ended” page"],
  ["fallback", "Send to the fallback URL"],
];
/** Conditions the form has controls for; every other (timeZone, scanCount, …) stays in the rule's Advanced (JSON). */
const FORM_CONDITIONS = ["device", "os", "browser", "country", "region", "language", "time", "weekdays", "dates", "query", "visitor"] as const;
const CONDITION_WORDS: Record<string, string> = {
  device: "devices",
  os: "operating systems",
  browser: "browsers",
  country: "countries",
  region: "regions",
  language: "languages",
  time: "time of day",
  weekdays: "weekdays",
  dates: "dates",
  timeZone: "time zone",
  scanCount: "scan count",
  query: "query parameter",
  visitor: "visitor",
};
const FIELD_WORDS: Record<string, string> = {
  startsAt: "Starts",
  endsAt: "Ends",
  humanScanCap: "People's scans cap",
  fallbackUrl: "Fallback URL",
  utmTemplate: "UTM template",
  password: "Password",
  rules: "Rules",
};
const letter = (i: number) => String.fromCharCode(65 + i);
const list = (text: string) => text.split(",").map((s) => s.trim()).filter(Boolean);
const sentence = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);

// ---- wall clock of the workspace's zone (the schedule is shown and typed in it) ----

function wallClock(at: Date, timeZone: string): string {
  const f = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" });
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

/** The instant at which the zone's wall clock reads `local` (YYYY-MM-DDTHH:MM). */
function instantIn(local: string, timeZone: string): Date {
  const wanted = Date.parse(`${local.slice(0, 16)}:00Z`);
  let t = wanted;
  for (let i = 0; i < 3; i++) {
    const off = Date.parse(`${wallClock(new Date(t), timeZone)}:00Z`) - wanted;
    if (off === 0) break;
    t -= off;
  }
  return new Date(t);
}

// ---- refusals as sentences ----

/** "Rule 2 “French speakers”, condition “countries”" for "rules.1.when.country". */
function placeOf(path: string, ruleName: (i: number) => string): string {
  const p = path.replace(/^settings\.?/, "").split(".");
  if (p[0] !== "rules" || p.length < 2) return FIELD_WORDS[p[0]] ?? (p[0] || "Settings");
  const i = Number(p[1]);
  const name = ruleName(i);
  let place = `Rule ${i + 1}${name ? ` “${name}”` : ""}`;
  if (p[2] === "when" && p[3]) place += `, condition “${CONDITION_WORDS[p[3]] ?? p[3]}”`;
  else if (p[2] === "when") place += ", conditions";
  else if (p[2] === "then" && p[3] === "variants") place += p[4] === undefined ? ", A/B split" : `, variant ${letter(Number(p[4]))}${p[5] ? ` ${p[5]}` : ""}`;
  else if (p[2] === "then" && p[3] === "url") place += ", URL";
  else if (p[2] === "then") place += ", action";
  else if (p[2] === "name") place += ", name";
  return place;
}

/** The sentences of a refusal: one per issue the server names, else its message. */
async function refusal(res: Response, ruleName: (i: number) => string): Promise<string[]> {
  const body: unknown = await res.json().catch(() => undefined);
  const issues = (body as { details?: { issues?: Array<{ path?: unknown; message?: unknown }> } } | undefined)?.details?.issues;
  if (Array.isArray(issues) && issues.length) return issues.map((i) => sentence(`${placeOf(String(i.path ?? ""), ruleName)}: ${String(i.message)}`));
  return [answerMessage(res, body)];
}

class ShownList extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join(" "));
  }
}

/** Sentences shown in `into`: a notice, or an alert; no lines clears it. */
function showLines(into: HTMLElement, lines: string[], isError: boolean): void {
  into.replaceChildren(...(lines.length ? [h("div", { class: isError ? "error" : "notice", role: isError ? "alert" : "status" }, ...lines.map((l) => h("p", {}, l)))] : []));
}

/** The editor's settings, or undefined once `show` has said why they cannot be read. */
function readSettings(settings: () => Settings, show: (lines: string[], isError: boolean) => void): Settings | undefined {
  try {
    return settings();
  } catch (e) {
    if (!(e instanceof ShownList)) throw e;
    show(e.lines, true);
    return undefined;
  }
}

// ---- one rule ----

interface RuleEditor {
  element: HTMLFieldSetElement;
  value(): RuleInput;
  name(): string;
  setNumber(n: number): void;
}

function checks(values: readonly string[], label: (v: string) => string, chosen: readonly string[] | undefined, cls: string): { element: HTMLElement; value: () => string[] } {
  const boxes = values.map((v) => h("input", { type: "checkbox", value: v, ...(chosen?.includes(v) ? { checked: "" } : {}) }));
  return {
    element: h("div", { class: `checks ${cls}` }, ...boxes.map((b) => h("label", { class: "check" }, b, ` ${label(b.value)}`))),
    value: () => boxes.filter((b) => b.checked).map((b) => b.value),
  };
}

function input(attrs: Record<string, string>, value = ""): HTMLInputElement {
  const el = h("input", attrs);
  el.value = value;
  return el;
}

function ruleEditor(editor: Editor, rule: RuleInput, onMove: (self: RuleEditor, by: number) => void, onRemove: (self: RuleEditor) => void): RuleEditor {
  const w = rule.when;
  const legend = h("legend", {});
  const name = field("Rule name (optional)", input({ class: "rule-name", maxlength: "80" }, rule.name ?? ""));
  const devices = checks(editor.names.device, (v) => v, w.device, "rule-device");
  const os = field("Operating systems", input({ class: "rule-os", placeholder: "iOS, Android", list: "campaign-os-names" }, (w.os ?? []).join(", ")));
  const browser = field("Browsers", input({ class: "rule-browser", placeholder: "Safari, Chrome", list: "campaign-browser-names" }, (w.browser ?? []).join(", ")));
  const country = field("Countries", input({ class: "rule-country", placeholder: "US, CA" }, (w.country ?? []).join(", ")));
  const region = field("Regions", input({ class: "rule-region", placeholder: "US: California; DE: Bavaria" }, (w.region ?? []).map((r) => `${r.country}: ${r.region}`).join("; ")));
  const language = field("First language", input({ class: "rule-language", placeholder: "fr, pt-BR" }, (w.language ?? []).join(", ")));
  const timeFrom = field("From (local time)", input({ type: "time", class: "rule-time-from" }, w.time?.from ?? ""));
  const timeTo = field("Until (local time)", input({ type: "time", class: "rule-time-to" }, w.time?.to ?? ""));
  const weekdays = checks(WEEKDAYS, (v) => WEEKDAY_NAMES[v], w.weekdays, "rule-weekdays");
  const dateFrom = field("First date", input({ type: "date", class: "rule-date-from" }, w.dates?.from ?? ""));
  const dateTo = field("Last date", input({ type: "date", class: "rule-date-to" }, w.dates?.to ?? ""));
  const queryName = field("Query parameter name", input({ class: "rule-query-name", placeholder: "table" }, w.query?.name ?? ""));
  const queryEquals = field("…equal to (optional)", input({ class: "rule-query-equals", placeholder: "12" }, w.query?.equals ?? ""));
  const visitor = field("Visitor", select("", [["", "Anyone"], ["human", "People only"], ["bot", "Bots and previews only"]]));
  visitor.input.classList.add("rule-visitor");
  visitor.input.value = w.visitor ?? "";
  const rest = Object.fromEntries(Object.entries(w).filter(([k]) => !(FORM_CONDITIONS as readonly string[]).includes(k)));
  const advanced = h("textarea", { class: "rule-advanced", rows: "2", spellcheck: "false" });
  advanced.value = Object.keys(rest).length ? JSON.stringify(rest) : "";
  advanced.id = `rule-advanced-${Math.random().toString(36).slice(2)}`;

  // ---- action ----
  const then = rule.then;
  const kind = field("Action", select("", ACTIONS));
  kind.input.classList.add("rule-action");
  kind.input.value = then.type;
  const url = field("URL", input({ type: "url", class: "rule-url", placeholder: "https://" }, then.type === "redirect" ? then.url : ""));
  const passwordUrl = field("After the right password, open (optional; the code's destination when empty)", input({ type: "url", class: "rule-password-url", placeholder: "https://" }, then.type === "password" ? (then.url ?? "") : ""));
  const variantRows = h("div", { class: "variants" });
  const variants: Array<{ row: HTMLElement; url: HTMLInputElement; weight: HTMLInputElement }> = [];
  const relabel = () => {
    variants.forEach((v, i) => {
      v.row.querySelector("legend")!.textContent = `Variant ${letter(i)}`;
      (v.row.querySelector(".variant-remove") as HTMLButtonElement | null)?.toggleAttribute("disabled", variants.length <= 2);
    });
    addVariantButton.disabled = variants.length >= 4;
  };
  const addVariant = (u = "", weight = "") => {
    if (variants.length >= 4) return;
    const vu = field("URL", input({ type: "url", class: "variant-url", placeholder: "https://" }, u));
    const vw = field("Share (%)", input({ type: "number", class: "variant-weight", min: "1", max: "99", step: "1" }, weight));
    const row = h("fieldset", { class: "variant" }, h("legend", {}, ""), h("div", { class: "form-row" }, vu.wrap, vw.wrap));
    const entry = { row, url: vu.input, weight: vw.input };
    const remove = h("button", { type: "button", class: "variant-remove" }, "Remove variant");
    remove.addEventListener("click", () => {
      if (variants.length <= 2) return;
      variants.splice(variants.indexOf(entry), 1);
      row.remove();
      relabel();
    });
    row.querySelector(".form-row")!.append(remove);
    variants.push(entry);
    variantRows.append(row);
    relabel();
  };
  const addVariantButton = h("button", { type: "button", class: "variant-add" }, "Add variant");
  addVariantButton.addEventListener("click", () => addVariant());
  if (then.type === "split") then.variants.forEach((v) => addVariant(v.url, String(v.weight)));
  else {
    addVariant("", "50");
    addVariant("", "50");
  }
  const split = h("div", { class: "split" }, variantRows, addVariantButton);
  const showAction = () => {
    const t = kind.input.value;
    url.wrap.hidden = t !== "redirect";
    passwordUrl.wrap.hidden = t !== "password";
    split.hidden = t !== "split";
  };
  kind.input.addEventListener("change", showAction);
  showAction();

  const move = (label: string, by: number, cls: string) => {
    const b = h("button", { type: "button", class: cls }, label);
    b.addEventListener("click", () => onMove(self, by));
    return b;
  };
  const removeRule = h("button", { type: "button", class: "rule-remove danger" }, "Remove rule");
  removeRule.addEventListener("click", () => onRemove(self));

  const element = h(
    "fieldset",
    { class: "campaign-rule" },
    legend,
    name.wrap,
    h("h4", {}, "When all of these hold"),
    h("p", { class: "muted" }, "Leave a condition empty to ignore it (no condition at all: every scan). Separate values with commas; regions as “US: California; DE: Bavaria”."),
    h("div", { class: "cond-label" }, "Devices"),
    devices.element,
    h("div", { class: "form-grid" }, os.wrap, browser.wrap, country.wrap, region.wrap, language.wrap, visitor.wrap),
    h("div", { class: "form-row" }, timeFrom.wrap, timeTo.wrap, dateFrom.wrap, dateTo.wrap),
    h("div", { class: "cond-label" }, "Weekdays"),
    weekdays.element,
    h("div", { class: "form-row" }, queryName.wrap, queryEquals.wrap),
    h("div", { class: "field" }, h("label", { for: advanced.id }, "Advanced (JSON): other conditions, such as a time zone of the rule's own: {\"timeZone\": \"Europe/Paris\"}"), advanced),
    h("h4", {}, "Then"),
    kind.wrap,
    url.wrap,
    passwordUrl.wrap,
    split,
    h("div", { class: "actions" }, move("Move up", -1, "rule-up"), move("Move down", 1, "rule-down"), removeRule),
  );

  const value = (): RuleInput => {
    const when: When = {};
    const named = (problem: string) => new ShownList([`${legend.textContent}: ${problem}`]);
    if (advanced.value.trim()) {
      let extra: unknown;
      try {
        extra = JSON.parse(advanced.value);
      } catch {
        throw named("Advanced (JSON) is not valid JSON; write an object such as {\"timeZone\": \"Europe/Paris\"}, or leave it empty.");
      }
      if (typeof extra !== "object" || extra === null || Array.isArray(extra)) throw named("Advanced (JSON) must be an object such as {\"timeZone\": \"Europe/Paris\"}.");
      Object.assign(when, extra);
    }
    if (devices.value().length) when.device = devices.value();
    if (list(os.input.value).length) when.os = list(os.input.value);
    if (list(browser.input.value).length) when.browser = list(browser.input.value);
    if (list(country.input.value).length) when.country = list(country.input.value);
    const regions = region.input.value.split(";").map((s) => s.trim()).filter(Boolean);
    if (regions.length) {
      when.region = regions.map((r) => {
        const at = r.indexOf(":");
        if (at < 0) throw named(`the region “${r}” needs its country first, as in “US: California”.`);
        return { country: r.slice(0, at).trim(), region: r.slice(at + 1).trim() };
      });
    }
    if (list(language.input.value).length) when.language = list(language.input.value);
    if (timeFrom.input.value || timeTo.input.value) when.time = { from: timeFrom.input.value, to: timeTo.input.value };
    if (weekdays.value().length) when.weekdays = weekdays.value() as When["weekdays"];
    if (dateFrom.input.value || dateTo.input.value) when.dates = { ...(dateFrom.input.value ? { from: dateFrom.input.value } : {}), ...(dateTo.input.value ? { to: dateTo.input.value } : {}) };
    if (queryName.input.value) when.query = { name: queryName.input.value, ...(queryEquals.input.value ? { equals: queryEquals.input.value } : {}) };
    if (visitor.input.value === "human" || visitor.input.value === "bot") when.visitor = visitor.input.value;
    const t = kind.input.value as Then["type"];
    let action: Then;
    if (t === "redirect") action = { type: "redirect", url: url.input.value.trim() };
    else if (t === "split") action = { type: "split", variants: variants.map((v) => ({ url: v.url.value.trim(), weight: Number(v.weight.value) })) };
    else if (t === "password") action = passwordUrl.input.value.trim() ? { type: "password", url: passwordUrl.input.value.trim() } : { type: "password" };
    else action = { type: t };
    return { ...(name.input.value.trim() ? { name: name.input.value.trim() } : {}), when, then: action };
  };
  const self: RuleEditor = {
    element,
    value,
    name: () => name.input.value.trim(),
    setNumber: (n) => (legend.textContent = `Rule ${n}${name.input.value.trim() ? `: ${name.input.value.trim()}` : ""}`),
  };
  name.input.addEventListener("input", () => self.setNumber([...element.parentElement!.children].indexOf(element) + 1));
  return self;
}

// ---- the sample scan, in words ----

function describe(p: Preview, settings: Settings, sampleVisitor: number): string {
  const where = p.result === "ended" ? "shows the “campaign has ended” page" : p.result === "password" ? `asks for the password, then opens ${p.url}` : `goes to ${p.url}`;
  if (p.state) {
    const why = p.state === "not-started" ? "has not started yet at that time" : p.state === "ended" ? "has ended at that time" : "has reached its cap of people's scans";
    return `The code ${why}, so no rule is tried: the scan ${where}${p.result === "fallback" ? " (the fallback URL)" : ""}.`;
  }
  if (p.ruleIndex === null) return `No rule matches: the scan goes to the code's destination, ${p.url}.`;
  const rule = `Rule ${p.ruleIndex + 1}${p.ruleName ? ` “${p.ruleName}”` : ""} matches`;
  if (p.result === "split" && p.variant !== null) {
    const then = settings.rules[p.ruleIndex].then;
    const share = then.type === "split" ? ` (${then.variants[p.variant].weight}%)` : "";
    return `${rule}: an A/B split. Sample visitor ${sampleVisitor} gets variant ${letter(p.variant)}${share} and goes to ${p.url}. Other visitors may get another variant; each keeps theirs all day.`;
  }
  if (p.result === "fallback") return `${rule}: the scan goes to the fallback URL, ${p.url}.`;
  return `${rule}: the scan ${where}.`;
}

// ---- the section on the code page ----

export async function campaignSection(kit: Kit, codeId: string): Promise<HTMLElement> {
  const [editor, { templates }] = await Promise.all([kit.api("GET /codes/:codeId/campaign", { params: { codeId } }), kit.api("GET /utm-templates")]);
  const zone = editor.timeZone;
  const stored = editor.campaignRules ?? { rules: [] };
  const editors: RuleEditor[] = [];
  const rulesBox = h("div", { id: "campaign-rules" });
  const empty = h("p", { class: "muted", id: "campaign-no-rules" }, "No rules: every scan goes to the destination.");
  const renumber = () => {
    rulesBox.replaceChildren(...editors.map((e) => e.element));
    editors.forEach((e, i) => {
      e.setNumber(i + 1);
      e.element.querySelector<HTMLButtonElement>(".rule-up")!.disabled = i === 0;
      e.element.querySelector<HTMLButtonElement>(".rule-down")!.disabled = i === editors.length - 1;
    });
    empty.hidden = editors.length > 0;
  };
  const onMove = (self: RuleEditor, by: number) => {
    const i = editors.indexOf(self);
    const j = i + by;
    if (j < 0 || j >= editors.length) return;
    [editors[i], editors[j]] = [editors[j], editors[i]];
    renumber();
  };
  const onRemove = (self: RuleEditor) => {
    editors.splice(editors.indexOf(self), 1);
    renumber();
  };
  const addRule = (rule: RuleInput) => {
    editors.push(ruleEditor(editor, rule, onMove, onRemove));
    renumber();
  };
  stored.rules.forEach(addRule);

  // ---- code-level fields: the schedule is typed on the workspace's wall clock; unchanged, the stored instant is kept ----
  const when = (iso: string | undefined) => (iso ? wallClock(new Date(iso), zone) : "");
  const startsAt = field(`Starts (${zone})`, input({ type: "datetime-local", id: "campaign-starts" }, when(stored.startsAt)));
  const endsAt = field(`Ends (${zone})`, input({ type: "datetime-local", id: "campaign-ends" }, when(stored.endsAt)));
  const cap = field("People's scans cap", input({ type: "number", id: "campaign-cap", min: "1", step: "1" }, stored.humanScanCap === undefined ? "" : String(stored.humanScanCap)));
  const fallback = field("Fallback URL", input({ type: "url", id: "campaign-fallback", placeholder: "https://" }, stored.fallbackUrl ?? ""));
  const utm = field("UTM template", select("campaign-utm", [["", "None"], ...templates.map((t) => [t.name, `${t.name} (${t.source} / ${t.medium})`] as [string, string])]));
  if (stored.utmTemplate && !templates.some((t) => t.name === stored.utmTemplate)) utm.input.append(h("option", { value: stored.utmTemplate }, `${stored.utmTemplate} (removed)`));
  utm.input.value = stored.utmTemplate ?? "";
  // The "campaign has ended" page's own words (beside the business's name and the code's colours).
  const endedHeading = field("Ended page heading", input({ type: "text", id: "campaign-ended-heading", maxlength: "80" }, stored.endedPage?.heading ?? ""));
  const endedMessage = field("Ended page message", h("textarea", { id: "campaign-ended-message", maxlength: "400", rows: "2" }, stored.endedPage?.message ?? "") as HTMLTextAreaElement);
  const password = field(editor.hasPassword ? "New password (empty: keep it)" : "Password (for password rules)", input({ type: "password", id: "campaign-password", autocomplete: "new-password", minlength: "8", maxlength: "128" }));
  const instant = (f: { input: HTMLInputElement }, original: string | undefined) => {
    const v = f.input.value;
    if (!v) return undefined;
    return original && v === when(original) ? original : instantIn(v, zone).toISOString();
  };

  const settings = (): Settings => {
    const s: Settings = { rules: editors.map((e) => e.value()) };
    const starts = instant(startsAt, stored.startsAt);
    const ends = instant(endsAt, stored.endsAt);
    if (starts) s.startsAt = starts;
    if (ends) s.endsAt = ends;
    if (cap.input.value) s.humanScanCap = Number(cap.input.value);
    if (fallback.input.value.trim()) s.fallbackUrl = fallback.input.value.trim();
    if (utm.input.value) s.utmTemplate = utm.input.value;
    const heading = endedHeading.input.value.trim();
    const message = endedMessage.input.value.trim();
    if (heading || message) s.endedPage = { ...(heading ? { heading } : {}), ...(message ? { message } : {}) };
    if (password.input.value) s.password = password.input.value;
    return s;
  };
  const ruleName = (i: number) => editors[i]?.name() ?? "";
  const status = h("div", { id: "campaign-status", "aria-live": "polite" });
  const show = (lines: string[], isError: boolean) => showLines(status, lines, isError);

  const save = kit.act(
    "Save rules",
    async () => {
      const body = readSettings(settings, show);
      if (!body) return;
      const res = await send(kit.authHeader, "POST /codes/:codeId/campaign", { params: { codeId }, body });
      if (!res.ok) return show(await refusal(res, ruleName), true);
      password.input.value = "";
      show([`Saved: the next scan follows these ${body.rules.length === 1 ? "rule" : `${body.rules.length} rules`}.`], false);
    },
    { id: "campaign-save", class: "primary" },
  );
  const add = h("button", { type: "button", id: "campaign-add-rule" }, "Add rule");
  add.addEventListener("click", () => addRule({ when: {}, then: { type: "redirect", url: "" } }));

  // A change to the settings makes the last save's answer stale.
  const section = h(
    "section",
    { id: "code-campaign", "aria-labelledby": "campaign-h" },
    h("h2", { id: "campaign-h" }, "Campaign rules"),
    h("p", { class: "muted" }, `Rules are tried in order; the first whose conditions all hold decides where the scan goes. Times and dates are read in ${zone}.`),
    h("datalist", { id: "campaign-os-names" }, ...editor.names.os.map((n) => h("option", { value: n }))),
    h("datalist", { id: "campaign-browser-names" }, ...editor.names.browser.map((n) => h("option", { value: n }))),
    empty,
    rulesBox,
    h("div", { class: "actions" }, add),
    h("h3", {}, "Schedule, cap and fallback"),
    h("p", { class: "muted" }, "Before it starts, from its end, and once the cap of people's scans is reached, the code sends people to the fallback URL (no fallback URL: a “campaign has ended” page). Bots, previews and repeat scans never count against the cap."),
    h("div", { class: "form-grid" }, startsAt.wrap, endsAt.wrap, cap.wrap, fallback.wrap, utm.wrap, password.wrap, endedHeading.wrap, endedMessage.wrap),
    h("div", { class: "actions" }, save),
    status,
  );
  for (const event of ["input", "change"]) section.addEventListener(event, () => show([], false));
  section.append(samplePanel(kit, editor, settings, ruleName));
  return section;
}

function samplePanel(kit: Kit, editor: Editor, settings: () => Settings, ruleName: (i: number) => string): HTMLElement {
  const device = field("Device", select("sample-device", editor.names.device.map((d) => [d, d] as [string, string])));
  device.input.value = "mobile";
  const os = field("Operating system", select("sample-os", editor.names.os.map((d) => [d, d] as [string, string])));
  os.input.value = "unknown";
  const browser = field("Browser", select("sample-browser", editor.names.browser.map((d) => [d, d] as [string, string])));
  browser.input.value = "unknown";
  const country = field("Country", input({ id: "sample-country", placeholder: "US", maxlength: "2" }));
  const region = field("Region", input({ id: "sample-region", placeholder: "California" }));
  const language = field("Browser languages", input({ id: "sample-language", placeholder: "fr-CA,fr;q=0.9,en;q=0.5" }));
  const local = field(`Local date and time (${editor.timeZone})`, input({ type: "datetime-local", id: "sample-time" }, wallClock(new Date(), editor.timeZone)));
  const query = field("Query string", input({ id: "sample-query", placeholder: "table=12" }));
  const visitor = field("Visitor", select("sample-visitor", [["human", "A person"], ["bot", "A bot or link preview"]]));
  const who = field("Sample visitor (A/B)", input({ type: "number", id: "sample-number", min: "1", step: "1" }, "1"));
  const scans = field("People's scans so far", input({ type: "number", id: "sample-scans", min: "0", step: "1" }, "0"));
  const answer = h("div", { id: "sample-answer", "aria-live": "polite" });
  const show = (lines: string[], isError: boolean) => showLines(answer, lines, isError);
  const run = kit.act(
    "Try this scan",
    async () => {
      const draft = readSettings(settings, show);
      if (!draft) return;
      const sampleVisitor = Math.max(1, Math.floor(Number(who.input.value) || 1));
      const scan = {
        device: device.input.value,
        os: os.input.value,
        browser: browser.input.value,
        ...(country.input.value.trim() ? { country: country.input.value.trim() } : {}),
        ...(region.input.value.trim() ? { region: region.input.value.trim() } : {}),
        ...(language.input.value.trim() ? { acceptLanguage: language.input.value.trim() } : {}),
        localTime: local.input.value.slice(0, 16),
        ...(query.input.value.trim() ? { query: query.input.value.trim() } : {}),
        visitor: visitor.input.value === "bot" ? ("bot" as const) : ("human" as const),
        sampleVisitor,
        humanScans: Math.max(0, Math.floor(Number(scans.input.value) || 0)),
      };
      const res = await send(kit.authHeader, "POST /codes/:codeId/campaign/preview", { params: { codeId: editor.codeId }, body: { settings: draft, scan } });
      if (!res.ok) return show(await refusal(res, ruleName), true);
      const p = (await res.json()) as Preview;
      answer.dataset.rule = p.ruleIndex === null ? "none" : String(p.ruleIndex);
      show([describe(p, draft, sampleVisitor), "Nothing was recorded: this is a preview of the rules above as they are now, saved or not."], false);
    },
    { id: "sample-try" },
  );
  return h(
    "div",
    { id: "campaign-sample", class: "sample" },
    h("h3", {}, "Try a sample scan"),
    h("div", { class: "form-grid" }, device.wrap, os.wrap, browser.wrap, country.wrap, region.wrap, language.wrap, local.wrap, query.wrap, visitor.wrap, who.wrap, scans.wrap),
    h("div", { class: "actions" }, run),
    answer,
  );
}

// ---- UTM templates in Settings ----

export async function utmTemplatesSection(kit: Kit): Promise<HTMLElement> {
  const { templates } = await kit.api("GET /utm-templates");
  const f = (label: string, id: string, placeholder: string) => field(label, input({ id, placeholder, maxlength: id === "utm-name" ? "40" : "100" }));
  const name = f("Name", "utm-name", "spring-poster");
  const source = f("Source (utm_source)", "utm-source", "poster");
  const medium = f("Medium (utm_medium)", "utm-medium", "print");
  const campaign = f("Campaign (optional)", "utm-campaign", "spring-2027");
  const term = f("Term (optional)", "utm-term", "");
  const content = f("Content (optional)", "utm-content", "");
  const rows = templates.map((t: Template) => [
    h("code", {}, t.name),
    t.source,
    t.medium,
    t.campaign ?? "",
    [t.term, t.content].filter(Boolean).join(" / "),
    kit.act(
      "Remove",
      async () => {
        await kit.api("DELETE /utm-templates/:name", { params: { name: t.name } });
        kit.flash(`UTM template ${t.name} removed. Codes set with it keep its parameters until their rules are saved again.`);
        await kit.render();
      },
      { class: "utm-remove", "aria-label": `Remove UTM template ${t.name}` },
    ),
  ]);
  const save = kit.act(
    "Save template",
    async () => {
      const opt = (x: { input: HTMLInputElement }, key: "campaign" | "term" | "content") => (x.input.value.trim() ? { [key]: x.input.value.trim() } : {});
      const saved = await kit.api("POST /utm-templates", {
        body: { name: name.input.value.trim(), source: source.input.value.trim(), medium: medium.input.value.trim(), ...opt(campaign, "campaign"), ...opt(term, "term"), ...opt(content, "content") },
      });
      kit.flash(`UTM template ${saved.template.name} ${saved.created ? "added" : "replaced"}.`);
      await kit.render();
    },
    { id: "utm-save", class: "primary" },
  );
  return h(
    "section",
    { id: "utm-templates", "aria-labelledby": "utm-h" },
    h("h2", { id: "utm-h" }, "UTM templates"),
    h("p", { class: "muted" }, "A code's campaign rules can name one: its utm_ parameters are added to every URL the code sends people to, except those the URL already has. Saving a name that exists replaces that template."),
    rows.length
      ? table(["Name", "Source", "Medium", "Campaign", "Term / content", ""], rows, { id: "utm-rows", caption: "UTM templates of this workspace" }, (i) => ({ "data-name": templates[i].name }))
      : h("p", { class: "muted", id: "utm-empty" }, "No UTM templates yet."),
    h("h3", {}, "Add a template, or replace one by its name"),
    h("div", { class: "form-grid" }, name.wrap, source.wrap, medium.wrap, campaign.wrap, term.wrap, content.wrap),
    h("div", { class: "actions" }, save),
  );
}
