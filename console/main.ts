// The merchant console: sign in (Firebase Auth), then views chosen by the URL hash:
//   #/               dashboard: the workspace's scans, top codes, places, devices, hours (dashboard.ts)
//   #/codes          code list: search, filters, sort, pages, 7- and 30-day scans (codeList.ts)
//   #/new            create a code with a live preview of its exact PNG, published in the same step
//   #/code/<codeId>  one code: chart with dated axis, recent scans, ranges, CSV export, re-point, publish,
//                    and for a dynamic code its campaign rules with a sample-scan preview (campaign.ts)
//   #/content        audio codes, menus and challenges, with publish
//   #/gs1            product codes (GS1): items, their links and packaging QR codes; #/gs1/<itemId> one (gs1.ts)
//   #/domains        branded domains: add, the DNS records to create, state, verify, remove (domains.ts)
//   #/settings       API keys (the name the sandbox manifest uses), members, phone-book listings, webhooks,
//                    UTM templates (campaign.ts)
//   #/admin          phone-book moderation (admins)
// Talks only to /api/console/* with the user's ID token.
import { createUserWithEmailAndPassword, getAuth, GoogleAuthProvider, onAuthStateChanged, signInWithEmailAndPassword, signInWithPopup, signOut, type User } from "firebase/auth";
import { barChart } from "./chart";
import { downloadUrl, saveBlob, scansCsv } from "./files";
import { button, field, h, handled, oneOf, select, table } from "./dom";
import { consoleClient, send, type Answer, type Api, type Request } from "./api";
import { importView } from "./import";
import { connectedAppsSection } from "./connectedApps";
import { brandPresetsSection, codeDesignSection, designPanel, type DesignContext } from "./design";
import { webhooksSection } from "./webhooks";
import { domainsView } from "./domains";
import { gs1ItemView, gs1ListView, type Gs1Kit } from "./gs1";
import { campaignSection, utmTemplatesSection } from "./campaign";
import { conversionSection, shopifySection, trackingSection } from "./conversions";
import { insights } from "./insights";
import { codeListView, type CodeFiles } from "./codeList";
import { DASHBOARD_RANGES, dashboardView } from "./dashboard";
import { BOOST_FRAMES, SCAN_BEEP_SOUNDS, SCOPES, TEMPLATES } from "../functions/src/core/constants";
import { CAMPAIGN_MAX, TITLE_MAX, URL_MAX_LENGTH } from "../functions/src/core/limits";
import { effectiveLook } from "../functions/src/codes/look";
import { LOCAL, startFirebaseAuth } from "./firebaseAuth";
import { messageFor, readAnswer } from "./errors";

const RANGES = [7, 30, 90, 365];

/** A new code as the create form sends it. */
type NewCode = NonNullable<Request<"POST /codes">["body"]>;
type DraftKind = Exclude<Request<"POST /publish">["body"]["kind"], "codes">;

const app = document.getElementById("app")!;
let user: User | null = null;
let me: Answer<"GET /me"> | null = null;

/** Flashed notices stay until the person opens another view (no timer: a slow reader or a slow
 * re-render must not lose them); the newest few are kept, newest first. */
const KEPT_NOTICES = 3;
function flash(message: string, isError = false): void {
  const box = h("p", { class: isError ? "error" : "notice", role: isError ? "alert" : "status" }, message);
  app.prepend(box);
  currentNotices().slice(KEPT_NOTICES).forEach((old) => old.remove());
}
const act = (label: string, onClick: () => unknown, attrs: Record<string, string> = {}) => button(label, onClick, (e) => flash(e, true), attrs);

async function authHeader(): Promise<Record<string, string>> {
  return { Authorization: `Bearer ${await user!.getIdToken()}` };
}

/** The console API, typed from its route table (console/api.ts). */
const api: Api = consoleClient(authHeader);

function signInView(): void {
  const auth = getAuth();
  const email = field("Email", h("input", { type: "email", id: "email", autocomplete: "username" }));
  const password = field("Password", h("input", { type: "password", id: "password", autocomplete: "current-password" }));
  const claim = new URLSearchParams(location.search).get("claim");
  app.replaceChildren(
    h(
      "section",
      { "aria-labelledby": "sign-in-title" },
      h("h1", { id: "sign-in-title" }, "Sign in"),
      claim ? h("p", { class: "notice" }, "Sign in or create an account to claim your sandbox QR code.") : "",
      h("div", { class: "form-row" }, email.wrap, password.wrap),
      h(
        "div",
        { class: "actions" },
        act("Sign in", () => signInWithEmailAndPassword(auth, email.input.value, password.input.value), { id: "sign-in", class: "primary" }),
        act("Create account", () => createUserWithEmailAndPassword(auth, email.input.value, password.input.value), { id: "sign-up" }),
        LOCAL ? "" : act("Sign in with Google", () => signInWithPopup(auth, new GoogleAuthProvider())),
      ),
    ),
  );
}

/** A title or URL that may be long: wraps anywhere, with the full text on hover and focus. */
function longText(text: string, attrs: Record<string, string> = {}): HTMLElement {
  return h("span", { class: "long", title: text, ...attrs }, text);
}

function downloads(c: CodeFiles): HTMLElement {
  return h(
    "span",
    { class: "actions" },
    act("PNG", () => downloadUrl(c.qrImageUrl, `${slug(c.title)}.png`), { class: "dl-png", "aria-label": `Download PNG of ${c.title}` }),
    act("SVG", () => downloadUrl(c.qrSvgUrl, `${slug(c.title)}.svg`), { class: "dl-svg", "aria-label": `Download SVG of ${c.title}` }),
    act("PDF", () => downloadUrl(c.qrPdfUrl, `${slug(c.title)}.pdf`), { class: "dl-pdf", "aria-label": `Download PDF of ${c.title}` }),
  );
}

const gs1Kit = (): Gs1Kit => ({ api, authHeader, act, flash, render: route });

const designContext = (): DesignContext => ({ api, act, authHeader, flash, render: route, slug });

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || "qr-code";

// ---- Codes ------------------------------------------------------------------------------------------

// ---- Create -----------------------------------------------------------------------------------------

function newCodeView(): HTMLElement[] {
  const title = field("Title", h("input", { id: "new-title", required: "", maxlength: String(TITLE_MAX) }));
  const url = field("Destination URL", h("input", { id: "new-url", type: "url", required: "", placeholder: "https://", maxlength: String(URL_MAX_LENGTH) }));
  const campaign = field("Campaign (optional)", h("input", { id: "new-campaign", maxlength: String(CAMPAIGN_MAX) }));
  const tags = field("Tags, comma separated (optional)", h("input", { id: "new-tags" }));
  const kind = field("Kind", select("new-kind", [["static", "Static: encodes the URL itself"], ["dynamic", "Dynamic: counts scans, editable"]]));
  const template = field("Template", select("new-template", [["", "None"], ...TEMPLATES.map((t) => [t, t] as [string, string])]));
  const boost = field("Boost frame (overrides the template)", select("new-boost", [["", "None"], ...BOOST_FRAMES.map((t) => [t, t] as [string, string])]));
  const sound = field("Scan sound (makes it dynamic)", select("new-sound", [["", "None"], ...SCAN_BEEP_SOUNDS.map((t) => [t, t] as [string, string])]));
  const domain = field("Domain of its link", select("new-domain", [["", "The service's own host"]]));
  // Shown for a dynamic code once the workspace has an active domain, the workspace default preselected.
  let domainsShown = false;
  void api("GET /domains")
    .then(({ domains, defaultDomainId }) => {
      const active = domains.filter((d) => d.state === "active");
      if (!active.length) return;
      domain.input.append(...active.map((d) => h("option", { value: d.domainId }, d.hostnameUnicode)));
      domain.input.value = active.some((d) => d.domainId === defaultDomainId) ? defaultDomainId! : "";
      domainsShown = true;
      applyRules();
    })
    // Without the list the picker stays hidden, and the code goes on the workspace default as it would by API.
    .catch(() => undefined);
  const publish = h("input", { type: "checkbox", id: "new-publish", checked: "" });
  const rules = h("p", { class: "muted", id: "new-rules", "aria-live": "polite" });
  // Hidden until there is a preview to show: an image without a source is a broken-image icon.
  const preview = h("img", { id: "preview", alt: "Preview of the QR code", width: "256", height: "256", hidden: "" });
  const previewNote = h("p", { class: "muted", id: "preview-note" });
  const result = h("div", { id: "created" });
  const design = designPanel(designContext(), { id: "new-design", presets: true, onChange: () => refresh() });

  const input = (): NewCode => {
    const body: NewCode = { title: title.input.value.trim(), destinationUrl: url.input.value.trim() };
    if (campaign.input.value.trim()) body.campaign = campaign.input.value.trim();
    const tagList = tags.input.value.split(",").map((t) => t.trim()).filter(Boolean);
    if (tagList.length) body.tags = tagList;
    if ((kind.input as HTMLSelectElement).value === "dynamic") body.dynamic = true;
    if (body.dynamic && domainsShown) body.domainId = domain.input.value || null;
    body.template = oneOf(TEMPLATES, template.input.value);
    body.boostFrame = oneOf(BOOST_FRAMES, boost.input.value);
    body.scanBeepSound = oneOf(SCAN_BEEP_SOUNDS, sound.input.value);
    const chosen = design.value();
    if (chosen) body.design = chosen;
    return body;
  };

  /** " on <host>" for a dynamic code whose picker is shown: where its printed link will point. */
  const linkHost = () => (domainsShown && !domain.wrap.hidden ? ` on ${domain.input.value ? (domain.input.selectedOptions[0]?.textContent ?? "") : "the service's own host"}` : "");

  // The spec's rules as the server applies them (codes/look.ts): soundSeal and scan sounds force dynamic; a boost frame replaces the template.
  const applyRules = () => {
    const look = effectiveLook({ template: oneOf(TEMPLATES, template.input.value) ?? null, boostFrame: oneOf(BOOST_FRAMES, boost.input.value) ?? null, scanBeepSound: oneOf(SCAN_BEEP_SOUNDS, sound.input.value) ?? null });
    const forced = look.forcedDynamicBy === "soundSeal" ? "the soundSeal template" : look.forcedDynamicBy === "scanBeepSound" ? "a scan sound" : "";
    (kind.input as HTMLSelectElement).disabled = Boolean(forced);
    if (forced) (kind.input as HTMLSelectElement).value = "dynamic";
    domain.wrap.hidden = !domainsShown || (kind.input as HTMLSelectElement).value !== "dynamic";
    const notes = [forced && `Dynamic because of ${forced}.`, look.templateReplaced && "The boost frame replaces the template."].filter(Boolean);
    rules.textContent = notes.join(" ");
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  let shown: string | undefined;
  let seq = 0;
  const refresh = () => {
    applyRules();
    clearTimeout(timer);
    timer = setTimeout(handled(async () => {
      const body = input();
      const { title: _t, campaign: _c, tags: _g, ...look } = body;
      if (!/^https?:\/\/./.test(String(look.destinationUrl))) {
        previewNote.textContent = "Enter an http(s) URL to see the code.";
        return;
      }
      const mine = ++seq;
      const res = await send(authHeader, "POST /codes/preview", { body: look });
      if (mine !== seq) return; // a newer preview is on its way
      if (!res.ok) {
        previewNote.textContent = `No preview: ${await readAnswer(res).catch(messageFor)}`;
        return;
      }
      if (shown) URL.revokeObjectURL(shown);
      shown = URL.createObjectURL(await res.blob());
      preview.src = shown;
      preview.hidden = false;
      preview.dataset.for = JSON.stringify(look);
      previewNote.textContent =
        res.headers.get("X-Preview-Dynamic") === "true"
          ? `Dynamic: the file is exactly this, except the pattern, which encodes the code's own link${linkHost()} once it is created.`
          : "This is the exact PNG the code will have.";
    }, (message) => (previewNote.textContent = `No preview: ${message}`)), 200);
  };
  for (const f of [title, url, campaign, tags, kind, domain, template, boost, sound]) {
    f.input.addEventListener("input", refresh);
    f.input.addEventListener("change", refresh);
  }
  refresh();

  const form = h(
    "form",
    { id: "new-code-form", "aria-labelledby": "new-title-h" },
    h("div", { class: "form-grid" }, title.wrap, url.wrap, campaign.wrap, tags.wrap, kind.wrap, domain.wrap, template.wrap, boost.wrap, sound.wrap),
    rules,
    design.element,
    h("label", { class: "check" }, publish, " Publish now"),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "create-code" }, "Create QR code")),
  );
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- it catches every failure itself
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const submit = form.querySelector("button[type=submit]") as HTMLButtonElement;
    submit.disabled = true;
    try {
      const code = await api("POST /codes", { body: { ...input(), publish: publish.checked } });
      result.replaceChildren(
        h(
          "div",
          { class: "notice", role: "status" },
          h("p", {}, "Created ", h("a", { href: `#/code/${code.codeId}`, id: "created-link" }, code.title), ` (${code.status === "published" ? "published" : "draft"}).`),
          h("img", { class: "thumb", src: code.qrImageUrl, alt: "" }),
          downloads(code),
        ),
      );
      result.querySelector("a")?.focus();
    } catch (err) {
      flash(messageFor(err), true);
    } finally {
      submit.disabled = false;
    }
  });
  return [
    h(
      "section",
      { id: "new-code", "aria-labelledby": "new-title-h" },
      h("h1", { id: "new-title-h" }, "New QR code"),
      h("div", { class: "create" }, form, h("figure", { class: "preview" }, preview, h("figcaption", {}, previewNote))),
      result,
    ),
  ];
}

// ---- One code ---------------------------------------------------------------------------------------

/**
 * A dynamic code's link host, for its page: a picker of the workspace's active domains (and the one the code
 * names while it is not active) with the service's own host. Empty when there is nothing to choose (no
 * active domain, or the list could not be read: the code keeps its host).
 */
function linkHostRow(c: { codeId: string; dynamic: boolean; domainId: string | null; takenDown?: unknown }, listed: Answer<"GET /domains"> | undefined): HTMLElement | string {
  if (!c.dynamic || c.takenDown) return "";
  const choices = (listed?.domains ?? []).filter((d) => d.state === "active" || d.domainId === c.domainId);
  if (!choices.some((d) => d.state === "active")) return "";
  const pick = field("Host of its link", select("code-domain", [["", "The service's own host"], ...choices.map((d) => [d.domainId, d.state === "active" ? d.hostnameUnicode : `${d.hostnameUnicode} (not active)`] as [string, string])]));
  pick.input.value = c.domainId ?? "";
  return h(
    "div",
    { class: "form-row", id: "code-domain-row" },
    pick.wrap,
    act("Move link", async () => {
      const moved = await api("POST /codes/:codeId", { params: { codeId: c.codeId }, body: { domainId: pick.input.value || null } });
      flash(`Its link is now ${moved.dynamicLink}. Codes already printed with the old link keep working while that host stays active.`);
      await route();
    }, { id: "move-domain" }),
  );
}

async function codeView(codeId: string, days: number): Promise<HTMLElement[]> {
  // The domains are read beside the code (for its host picker); without them the page shows no picker.
  const [c, a, domains] = await Promise.all([api("GET /codes/:codeId", { params: { codeId } }), api("GET /codes/:codeId/analytics", { params: { codeId }, query: { days } }), api("GET /domains").catch(() => undefined)]);
  const hostRow = linkHostRow(c, domains);
  // A dynamic code's campaign rules: a section of its own that fails alone.
  const campaign = c.dynamic ? await campaignSection(gs1Kit(), codeId).catch((e) => h("section", { id: "code-campaign" }, h("h2", {}, "Campaign rules"), h("p", { class: "error" }, messageFor(e)))) : undefined;
  // The funnel and A/B results: a section of its own that fails alone.
  const conversions = await conversionSection(api, codeId, days).catch((e) => h("section", { id: "code-conversions" }, h("h2", {}, "Conversions"), h("p", { class: "error" }, messageFor(e))));
  const dest = field("Destination URL", h("input", { id: "repoint-url", type: "url", value: c.destinationUrl }));
  const ranges = h(
    "div",
    { class: "ranges", role: "group", "aria-label": "Date range" },
    ...RANGES.map((d) => h("a", { href: `#/code/${codeId}?days=${d}`, class: d === days ? "button current" : "button", ...(d === days ? { "aria-current": "true" } : {}) }, `${d} days`)),
  );
  const scanRows = a.scans.slice(0, 50).map((s) => [new Date(s.at).toLocaleString(), s.city ?? "unknown", s.state ?? "unknown", s.country ?? "unknown", s.device ?? "unknown"]);
  return [
    h(
      "section",
      { id: "code-detail", "aria-labelledby": "code-h" },
      h("p", {}, h("a", { href: "#/codes" }, "← All codes")),
      h("h1", { id: "code-h", class: "long", title: c.title }, c.title),
      ...(c.takenDown
        ? [
            h(
              "p",
              { class: "error", id: "taken-down", role: "alert" },
              `This code was taken down by the service's operators on ${new Date(c.takenDown.at).toLocaleDateString()}: ${c.takenDown.reason}. Its scans show a warning page instead of the destination, and the destination cannot be changed. Contact the operators to have it reviewed.`,
            ),
          ]
        : []),
      ...(c.passwordNotice
        ? [h("p", { class: "error", id: "password-notice", role: "status" }, `${new Date(c.passwordNotice.at).toLocaleString()}: ${c.passwordNotice.message}`)]
        : []),
      h(
        "div",
        { class: "detail" },
        h("img", { src: c.qrImageUrl, alt: `QR code for ${c.title}`, class: "big", width: "200", height: "200" }),
        h(
          "dl",
          {},
          h("dt", {}, "Destination"),
          h("dd", {}, longText(c.destinationUrl, { id: "detail-destination", class: "long url" })),
          h("dt", {}, "Kind"),
          h("dd", {}, c.dynamic ? `dynamic, ${c.dynamicLink}` : "static"),
          h("dt", {}, "Status"),
          h("dd", { id: "detail-status" }, c.status),
          h("dt", {}, "Files"),
          h("dd", {}, downloads(c)),
        ),
      ),
      h(
        "div",
        { class: "actions" },
        c.status === "draft"
          ? act("Publish", async () => { await api("POST /publish", { body: { kind: "codes", id: c.codeId } }); await route(); }, { id: "publish", class: "primary" })
          : act("Unpublish", async () => { await api("POST /codes/:codeId/unpublish", { params: { codeId: c.codeId } }); await route(); }, { id: "unpublish" }),
      ),
      c.dynamic
        ? h(
            "div",
            { class: "form-row" },
            dest.wrap,
            act("Re-point", async () => { await api("POST /codes/:codeId", { params: { codeId: c.codeId }, body: { destinationUrl: dest.input.value } }); flash("Destination updated: the next scan goes there."); await route(); }, { id: "repoint" }),
          )
        : h("p", { class: "muted" }, "Static code: the URL is printed in the pattern. Changing it re-renders the same files."),
      hostRow,
    ),
    ...codeDesignSection(designContext(), c),
    ...(campaign ? [campaign] : []),
    conversions,
    h(
      "section",
      { id: "code-scans", "aria-labelledby": "scans-h" },
      h("h2", { id: "scans-h" }, h("span", { id: "total-scans" }, String(a.totalScans)), ` scans from ${a.from} to ${a.to}`),
      ranges,
      barChart(a.byDay, `Scans per day for ${c.title}`),
      insights(a),
      h(
        "div",
        { class: "actions" },
        act("Export scans as CSV", () => saveBlob(new Blob([scansCsv(a.scans)], { type: "text/csv" }), `${slug(c.title)}-scans-${a.from}-${a.to}.csv`), { id: "export-csv" }),
      ),
      exportCoverage(a),
      scanRows.length ? table(["Date", "City", "State", "Country", "Device"], scanRows, { id: "scan-rows", caption: `Most recent scans (${scanRows.length} of ${a.scansListed})` }) : h("p", { class: "muted" }, "No scans in this range."),
    ),
  ];
}

/** Says what the scans export holds when the range has more scans than one answer lists. */
function exportCoverage(a: { scans: Array<{ date: string }>; scansTruncated?: boolean; totalScans: number; scansListed: number; from: string }): HTMLElement | string {
  if (!a.scansTruncated) return "";
  const oldest = a.scans.at(-1)?.date ?? a.from;
  return h("p", { id: "export-coverage", class: "notice" }, `The export holds the newest ${a.scansListed.toLocaleString("en-US")} of ${a.totalScans.toLocaleString("en-US")} scans of this range: it stops at ${oldest}. Earlier scans are in the figures above but not in the file; a shorter range exports more of its days.`);
}

// ---- Audio codes, menus, challenges ----------------------------------------------------------------

async function contentView(): Promise<HTMLElement[]> {
  const [audio, menus, challenges] = await Promise.all([api("GET /drafts/audioCodes"), api("GET /drafts/menus"), api("GET /drafts/challenges")]);
  const publishBtn = (kind: DraftKind, id: string, status: string) =>
    status === "draft" ? act("Publish", async () => { await api("POST /publish", { body: { kind, id } }); await route(); }, { "aria-label": `Publish ${kind} ${id}` }) : "";
  const rows = [
    ...audio.items.map((x) => ["Audio code", longText(x.title), x.status, publishBtn("audioCodes", x.audioCodeId, x.status)]),
    ...menus.items.map((m) => ["Menu", longText(`${m.name} (${m.itemCount} items)`), m.status, publishBtn("menus", m.menuId, m.status)]),
    ...challenges.items.map((c) => ["Challenge", longText(`${c.name} (${c.challengeType})`), c.status, publishBtn("challenges", c.challengeId, c.status)]),
  ];
  return [
    h(
      "section",
      { id: "drafts", "aria-labelledby": "drafts-h" },
      h("h1", { id: "drafts-h" }, "Audio codes, menus and challenges"),
      rows.length ? table(["Kind", "Name", "Status", ""], rows, { caption: "Made by your agents; publish to release them" }) : h("p", { class: "muted" }, "Nothing yet: agents create these with svc.audio.create, svc.menu.create and svc.challenge.create."),
    ),
  ];
}

// ---- Settings ---------------------------------------------------------------------------------------

async function keysSection(): Promise<HTMLElement> {
  const { keys } = await api("GET /keys");
  const name = field("Key name", h("input", { id: "key-name" }));
  const boxes = SCOPES.map((s) => h("label", { class: "check" }, h("input", { type: "checkbox", value: s, checked: "" }), ` ${s}`));
  const fresh = h("div", { id: "new-key-box" });
  const rows = keys.map((k) => [
    longText(k.name),
    h("code", {}, `${k.prefix}…`),
    k.scopes.join(", "),
    k.lastUsedAt ? new Date(k.lastUsedAt).toLocaleString() : "never",
    h("span", { class: "key-status" }, k.revokedAt ? "revoked" : "active"),
    k.revokedAt ? "" : act("Revoke", async () => { await api("POST /keys/:id/revoke", { params: { id: k.keyId } }); await route(); }, { class: "revoke", "aria-label": `Revoke ${k.name}` }),
  ]);
  return h(
    "section",
    { id: "keys", "aria-labelledby": "keys-h" },
    h("h2", { id: "keys-h" }, "API keys"),
    h("div", { class: "form-row" }, name.wrap),
    h("fieldset", {}, h("legend", {}, "Scopes"), ...boxes),
    h(
      "div",
      { class: "actions" },
      act("New API key", async () => {
        const ticked = new Set(boxes.map((l) => l.querySelector("input")!).filter((b) => b.checked).map((b) => b.value));
        const minted = await api("POST /keys", { body: { name: name.input.value || "API key", scopes: SCOPES.filter((s) => ticked.has(s)) } });
        await route();
        const box = document.getElementById("new-key-box")!;
        const code = h("code", { class: "key", id: "new-key" }, minted.key);
        box.replaceChildren(h("p", { class: "notice" }, "Copy this key now: it is shown only once. ", code, " ", act("Copy", () => navigator.clipboard.writeText(minted.key))));
      }, { id: "mint-key", class: "primary" }),
    ),
    fresh,
    table(["Name", "Prefix", "Scopes", "Last used", "Status", ""], rows, { id: "key-rows", caption: "Keys of this workspace" }, (i) => ({ "data-key-id": keys[i].keyId })),
  );
}

async function membersSection(): Promise<HTMLElement> {
  const { members } = await api("GET /members");
  const rows = members.map((m) => [longText(m.email ?? m.uid), m.role, m.createdAt ? new Date(m.createdAt).toLocaleDateString() : ""]);
  return h("section", { id: "members", "aria-labelledby": "members-h" }, h("h2", { id: "members-h" }, "Members"), table(["Member", "Role", "Since"], rows, { caption: "People in this workspace" }));
}

async function listingsSection(): Promise<HTMLElement> {
  const { listings } = await api("GET /workspace-listings");
  const rows = listings.map((l) => [longText(l.domain), longText(l.businessName), l.voiceAgentPhone, h("span", { class: "listing-status" }, l.status + (l.pendingChange ? " (change awaiting review)" : ""))]);
  return h(
    "section",
    { id: "listings", "aria-labelledby": "listings-h" },
    h("h2", { id: "listings-h" }, "Phone book listings"),
    rows.length ? table(["Domain", "Business", "Phone", "Status"], rows, { caption: "Your voice-agent listings" }) : h("p", { class: "muted" }, "No listings: agents add them with svc.voice_agent.register."),
  );
}

/**
 * Settings sections in page order. Each builds its own section and fails alone; other modules add theirs
 * here (for example connected apps) without touching the rest.
 */
/** The workspace's analytics time zone: days and hours of every chart and export are counted in it. */
async function timeZoneSection(): Promise<HTMLElement> {
  const current: string = me?.workspace?.timeZone ?? "UTC";
  const zones = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];
  const choice = field("Time zone", select("time-zone", zones.map((z) => [z, z.replace(/_/g, " ")] as [string, string])));
  choice.input.value = current;
  const owner = me?.role === "owner";
  if (!owner) choice.input.setAttribute("disabled", "");
  return h(
    "section",
    { id: "time-zone-settings", "aria-labelledby": "tz-h" },
    h("h2", { id: "tz-h" }, "Analytics time zone"),
    h("p", { class: "muted" }, "Scan days and hours are counted in this time zone. Scans already counted keep their day."),
    h(
      "div",
      { class: "form-row" },
      choice.wrap,
      owner
        ? act("Save time zone", async () => {
            await api("POST /workspace/time-zone", { body: { timeZone: choice.input.value } });
            if (me?.workspace) me.workspace.timeZone = choice.input.value;
            flash(`Scans are now counted in ${choice.input.value}.`);
          }, { id: "save-time-zone" })
        : h("p", { class: "muted" }, "Only the workspace's owner can change it."),
    ),
  );
}

export const SETTINGS_SECTIONS: Array<() => Promise<HTMLElement>> = [
  keysSection,
  membersSection,
  listingsSection,
  timeZoneSection,
  () => brandPresetsSection(designContext()),
  () => connectedAppsSection({ api, h, button: (label, onClick, attrs) => act(label, onClick, attrs), render: route }),
  () => webhooksSection({ api, h, button: (label, onClick, attrs) => act(label, onClick, attrs), render: route }),
  () => trackingSection({ api, h, button: (label, onClick, attrs) => act(label, onClick, attrs), render: route }),
  () => shopifySection({ api, h, button: (label, onClick, attrs) => act(label, onClick, attrs), render: route }),
  () => utmTemplatesSection(gs1Kit()),
];

async function settingsView(): Promise<HTMLElement[]> {
  const built = await Promise.all(SETTINGS_SECTIONS.map((s) => s().catch((e) => h("section", {}, h("p", { class: "error" }, messageFor(e))))));
  return [h("h1", { class: "page-title" }, "Settings"), ...built];
}

// ---- Admin ------------------------------------------------------------------------------------------

/** The moderation queue's page: the cursor the previous page gave, with the ones before it for "Previous". */
let moderationCursors: string[] = [];

async function adminView(): Promise<HTMLElement[]> {
  const cursor = moderationCursors[moderationCursors.length - 1];
  const [{ listings }, { groups, nextCursor }] = await Promise.all([
    api("GET /listings", { query: { status: "pending" } }),
    api("GET /report-groups", { query: { status: "open", ...(cursor ? { cursor } : {}) } }),
  ]);
  // One row per reported code or GS1 item: its reports counted by reason, the newest one's words, one decision for all.
  const reportRows = groups.map((g) => {
    const newest = g.reports[0];
    const name = g.url ?? g.subject;
    return [
      h("span", {}, h("code", { class: "long" }, name), h("br"), h("span", { class: "muted" }, `${g.count} report${g.count === 1 ? "" : "s"}, latest ${new Date(g.latestAt).toLocaleString()}`)),
      longText(g.destinationUrl),
      h("span", {}, h("strong", {}, Object.entries(g.reasons).map(([r, n]) => `${r} ×${n}`).join(", ")), newest?.details ? h("span", { class: "long" }, `: ${newest.details}`) : ""),
      h(
        "span",
        { class: "actions" },
        act("Take down", async () => { await api("POST /report-groups/:subject/:action", { params: { subject: g.subject, action: "takedown" } }); await route(); }, { class: "danger", "aria-label": `Take down ${name}`, "data-subject": g.subject }),
        act("Dismiss", async () => { await api("POST /report-groups/:subject/:action", { params: { subject: g.subject, action: "dismiss" } }); await route(); }, { "aria-label": `Dismiss the reports on ${name}` }),
      ),
    ];
  });
  const paging = h(
    "p",
    { class: "actions", id: "report-pages" },
    ...(moderationCursors.length ? [act("Previous page", async () => { moderationCursors = moderationCursors.slice(0, -1); await route(); })] : []),
    ...(nextCursor ? [act("Next page", async () => { moderationCursors = [...moderationCursors, nextCursor]; await route(); })] : []),
  );
  const reportSection = h(
    "section",
    { id: "abuse-reports", "aria-labelledby": "reports-h" },
    h("h2", { id: "reports-h" }, "Abuse reports"),
    h("p", { class: "muted" }, "Reports are grouped by the code or GS1 product link reported. Taking one down shows a warning page on its next scan and mails its owner why and how to appeal; the admin CLI's restore undoes it."),
    reportRows.length ? table(["Code or product link", "Destination when reported", "Reasons", ""], reportRows, { id: "report-rows", caption: "Open abuse reports" }) : h("p", { class: "muted", id: "no-reports" }, "No open reports."),
    paging,
  );
  const rows = listings.map((l) => [
    longText(l.domain),
    longText(l.businessName),
    l.voiceAgentPhone,
    h(
      "span",
      { class: "actions" },
      act("Approve", async () => { await api("POST /listings/:domain/:action", { params: { domain: l.domain, action: "approve" } }); await route(); }, { "aria-label": `Approve ${l.domain}` }),
      act("Reject", async () => { await api("POST /listings/:domain/:action", { params: { domain: l.domain, action: "reject" } }); await route(); }, { "aria-label": `Reject ${l.domain}` }),
    ),
  ]);
  return [h("h1", { id: "moderation-h" }, "Moderation"), reportSection, h("section", { id: "admin", "aria-labelledby": "admin-h" }, h("h2", { id: "admin-h" }, "Pending phone book listings"), rows.length ? table(["Domain", "Business", "Phone", ""], rows, { caption: "Listings awaiting review" }) : h("p", { class: "muted" }, "Nothing to review."))];
}

// ---- Shell ------------------------------------------------------------------------------------------

async function claimFromLink(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const token = params.get("claim");
  if (!token) return;
  history.replaceState(null, "", location.pathname + location.hash);
  try {
    const result = await api("POST /claims", { body: { claimToken: token } });
    flash(`Claimed: ${result.code.title} is now a permanent code in your workspace.`);
  } catch (e) {
    flash(`Could not claim the code: ${messageFor(e)}`, true);
  }
}

function nav(current: string): HTMLElement {
  const items: Array<[string, string]> = [["#/", "Dashboard"], ["#/codes", "Codes"], ["#/new", "New code"], ["#/import", "Import CSV"], ["#/content", "Menus and more"], ["#/gs1", "Product codes (GS1)"], ["#/domains", "Domains"], ["#/settings", "Settings"], ...(me?.isAdmin ? [["#/admin", "Moderation"] as [string, string]] : [])];
  return h("nav", { "aria-label": "Console" }, h("ul", {}, ...items.map(([href, label]) => h("li", {}, h("a", { href, ...(href === current ? { "aria-current": "page" } : {}) }, label)))));
}

type View = () => Promise<HTMLElement[]> | HTMLElement[];

let routeSeq = 0;

/** The flashed notices and errors on screen (not those inside a view's own content), kept across a re-render. */
const currentNotices = (): Element[] => [...app.querySelectorAll(":scope > .notice[role=status], :scope > .error:not(#view-error)")];

async function route(): Promise<void> {
  if (!user) return;
  const [path, query] = (location.hash || "#/").split("?");
  const params = new URLSearchParams(query ?? "");
  const detail = /^#\/code\/([A-Za-z0-9_-]+)$/.exec(path);
  const gs1Item = /^#\/gs1\/([A-Za-z0-9_-]{32})$/.exec(path);
  const known = ["#/codes", "#/new", "#/content", "#/settings", "#/admin", "#/import", "#/gs1", "#/domains"];
  const navKey = detail ? "#/codes" : gs1Item ? "#/gs1" : known.includes(path) ? path : "#/";
  let view: View;
  if (detail) view = () => codeView(detail[1], RANGES.includes(Number(params.get("days"))) ? Number(params.get("days")) : 30);
  else if (path === "#/new") view = newCodeView;
  else if (path === "#/content") view = contentView;
  else if (path === "#/settings") view = settingsView;
  else if (path === "#/admin" && me?.isAdmin) view = adminView;
  else if (path === "#/import") view = () => importView({ authHeader, act, slug });
  else if (gs1Item) view = () => gs1ItemView(gs1Kit(), gs1Item[1]);
  else if (path === "#/gs1") view = () => gs1ListView(gs1Kit(), params);
  else if (path === "#/domains") view = () => domainsView({ api, act, flash, render: route, owner: me?.role === "owner" });
  else if (path === "#/codes") view = () => codeListView({ api, act, downloads }, params);
  else view = () => dashboardView(api, DASHBOARD_RANGES.includes(Number(params.get("days"))) ? Number(params.get("days")) : 30);
  const mine = ++routeSeq;
  // A view that takes a moment says so (after 200 ms, so fast ones do not flash).
  const slow = setTimeout(() => {
    if (mine !== routeSeq) return;
    delete app.dataset.view; // not ready: what waits for a view waits on
    // Notices survive the loading state: "Design saved" must not vanish because the re-render was slow.
    app.replaceChildren(nav(navKey), ...currentNotices(), h("p", { class: "loading", role: "status", id: "view-loading" }, "Loading…"));
  }, 200);
  let content: HTMLElement[];
  try {
    content = await view();
  } catch (e) {
    const retry = act("Try again", () => route(), { id: "view-retry" });
    content = [
      h(
        "div",
        { class: "error", role: "alert", id: "view-error" },
        h("p", {}, `This page could not be loaded: ${messageFor(e)}`),
        h("p", {}, "Check your connection and try again; if it keeps happening, sign out and in again."),
        retry,
      ),
    ];
  } finally {
    clearTimeout(slow);
  }
  if (mine !== routeSeq) return; // the user moved on while this view loaded
  app.replaceChildren(nav(navKey), ...currentNotices(), ...content);
  app.dataset.view = navKey;
}

async function main(): Promise<void> {
  const auth = await startFirebaseAuth();
  window.addEventListener("hashchange", () => {
    currentNotices().forEach((old) => old.remove()); // another view: the last one's notices are done
    void route();
  });
  onAuthStateChanged(auth, handled(async (u) => {
    user = u;
    if (!u) {
      document.getElementById("who")!.replaceChildren();
      signInView();
      return;
    }
    app.replaceChildren(h("p", {}, "Loading your workspace…"));
    await api("POST /workspace", { body: {} }); // created on first sign-in
    me = await api("GET /me");
    document.getElementById("who")!.replaceChildren(longText(`${u.email} · ${me.workspace?.name ?? ""}`), " ", act("Sign out", () => signOut(getAuth()), { id: "sign-out" }));
    await claimFromLink();
    await route();
  }, (message) => flash(message, true)));
}

void main();
