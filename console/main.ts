// The merchant console: sign in (Firebase Auth), workspace, API keys, codes, drafts, analytics, claims and
// phone-book moderation. Talks only to /api/console/* with the user's ID token.
import { initializeApp } from "firebase/app";
import {
  connectAuthEmulator,
  createUserWithEmailAndPassword,
  getAuth,
  GoogleAuthProvider,
  onAuthStateChanged,
  signInWithEmailAndPassword,
  signInWithPopup,
  signOut,
  type User,
} from "firebase/auth";
import { connectedAppsSection } from "./connectedApps";

const LOCAL = ["127.0.0.1", "localhost"].includes(location.hostname);
const SCOPES = ["merchant:read", "qr:write", "menu:write", "audio:write", "challenge:write"];

async function firebaseConfig(): Promise<Record<string, string>> {
  if (LOCAL) return { apiKey: "demo-key", projectId: "demo-merchant-qr", authDomain: "demo-merchant-qr.firebaseapp.com" };
  return (await fetch("/__/firebase/init.json")).json(); // served by Firebase Hosting for the deployed project
}

const app = document.getElementById("app")!;
let user: User | null = null;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) el.append(c); // strings become text nodes: no HTML injection
  return el;
}

function button(label: string, onClick: () => unknown, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = h("button", attrs, label);
  b.addEventListener("click", async () => {
    b.disabled = true;
    try {
      await onClick();
    } catch (e) {
      flash(String((e as Error).message ?? e), true);
    } finally {
      b.disabled = false;
    }
  });
  return b;
}

function flash(message: string, isError = false): void {
  const box = h("p", { class: isError ? "error" : "notice", role: "status" }, message);
  app.prepend(box);
  setTimeout(() => box.remove(), 8000);
}

async function api<T = any>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const token = await user!.getIdToken();
  const res = await fetch(`/api/console${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { Authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${json.message ?? res.statusText}`);
  return json as T;
}

function signInView(): void {
  const email = h("input", { type: "email", placeholder: "email", id: "email", autocomplete: "username" });
  const password = h("input", { type: "password", placeholder: "password", id: "password", autocomplete: "current-password" });
  const auth = getAuth();
  const claim = new URLSearchParams(location.search).get("claim");
  app.replaceChildren(
    h(
      "section",
      {},
      h("h2", {}, "Sign in"),
      claim ? h("p", { class: "notice" }, "Sign in or create an account to claim your sandbox QR code.") : "",
      email,
      " ",
      password,
      " ",
      button("Sign in", () => signInWithEmailAndPassword(auth, email.value, password.value), { id: "sign-in", class: "primary" }),
      " ",
      button("Create account", () => createUserWithEmailAndPassword(auth, email.value, password.value), { id: "sign-up" }),
      LOCAL ? "" : button("Sign in with Google", () => signInWithPopup(auth, new GoogleAuthProvider())),
    ),
  );
}

function chart(byDay: Array<{ date: string; scans: number }>): HTMLElement {
  const max = Math.max(1, ...byDay.map((d) => d.scans));
  const bars = byDay.map((d) => {
    const bar = h("div", { title: `${d.date}: ${d.scans}` });
    bar.style.height = `${(100 * d.scans) / max}%`;
    return bar;
  });
  return h("div", { class: "chart", role: "img", "aria-label": "scans per day" }, ...bars);
}

async function keysSection(): Promise<HTMLElement> {
  const { keys } = await api<{ keys: any[] }>("/keys");
  const name = h("input", { placeholder: "key name", id: "key-name" });
  const boxes = SCOPES.map((s) => {
    const box = h("input", { type: "checkbox", value: s, checked: "" });
    return h("label", {}, box, ` ${s} `);
  });
  const fresh = h("div", { id: "new-key-box" });
  const rows = keys.map((k) =>
    h(
      "tr",
      { "data-key-id": k.keyId },
      h("td", {}, k.name),
      h("td", {}, h("code", {}, `${k.prefix}…`)),
      h("td", {}, k.scopes.join(", ")),
      h("td", {}, k.lastUsedAt ? new Date(k.lastUsedAt).toLocaleString() : "never"),
      h("td", { class: "key-status" }, k.revokedAt ? "revoked" : "active"),
      h("td", {}, k.revokedAt ? "" : button("Revoke", async () => { await api(`/keys/${k.keyId}/revoke`, { method: "POST" }); await render(); }, { class: "revoke" })),
    ),
  );
  return h(
    "section",
    { id: "keys" },
    h("h2", {}, "API keys"),
    name,
    " ",
    ...boxes,
    button("New API key", async () => {
      const scopes = boxes.map((l) => l.querySelector("input")!).filter((b) => b.checked).map((b) => b.value);
      const minted = await api("/keys", { body: { name: name.value || "API key", scopes } });
      await render();
      const box = document.getElementById("new-key-box")!;
      const code = h("code", { class: "key", id: "new-key" }, minted.key);
      box.replaceChildren(h("p", { class: "notice" }, "Copy this key now: it is shown only once. ", code, " ", button("Copy", () => navigator.clipboard.writeText(minted.key))));
    }, { id: "mint-key", class: "primary" }),
    fresh,
    h("table", {}, h("thead", {}, h("tr", {}, ...["Name", "Prefix", "Scopes", "Last used", "Status", ""].map((t) => h("th", {}, t)))), h("tbody", { id: "key-rows" }, ...rows)),
  );
}

async function codesSection(): Promise<HTMLElement> {
  const { codes } = await api<{ codes: any[] }>("/codes");
  const detail = h("div", { id: "code-analytics" });
  const rows = codes.map((c) => {
    const dest = h("input", { value: c.destinationUrl, size: "28" });
    return h(
      "tr",
      { "data-code-id": c.codeId },
      h("td", {}, h("img", { class: "thumb", src: c.qrImageUrl, alt: `QR code ${c.title}` })),
      h("td", { class: "code-title" }, c.title),
      h("td", {}, c.dynamic ? dest : c.destinationUrl),
      h("td", {}, c.dynamic ? "dynamic" : "static"),
      h("td", { class: "code-status" }, c.status),
      h(
        "td",
        {},
        h("a", { href: c.qrImageUrl, download: `${c.codeId}.png` }, "PNG"),
        " ",
        c.dynamic ? button("Re-point", async () => { await api(`/codes/${c.codeId}`, { body: { destinationUrl: dest.value } }); flash("Destination updated"); }) : "",
        " ",
        c.status === "draft" ? button("Publish", async () => { await api("/publish", { body: { kind: "codes", id: c.codeId } }); await render(); }) : "",
        " ",
        button("Scans", async () => {
          const a = await api(`/codes/${c.codeId}/analytics?days=30`);
          detail.replaceChildren(h("h3", {}, `${c.title}: ${a.totalScans} scans in 30 days`), chart(a.byDay));
        }),
      ),
    );
  });
  return h(
    "section",
    { id: "codes" },
    h("h2", {}, "QR codes"),
    codes.length ? h("table", {}, h("tbody", { id: "code-rows" }, ...rows)) : h("p", { class: "muted" }, "No codes yet: agents create drafts with svc.qr.create."),
    detail,
  );
}

async function draftsSection(): Promise<HTMLElement> {
  const [menus, challenges] = await Promise.all([api("/drafts/menus"), api("/drafts/challenges")]);
  const row = (kind: string, id: string, label: string, status: string) =>
    h("tr", {}, h("td", {}, kind), h("td", {}, label), h("td", {}, status), h("td", {}, status === "draft" ? button("Publish", async () => { await api("/publish", { body: { kind, id } }); await render(); }) : ""));
  const rows = [
    ...menus.items.map((m: any) => row("menus", m.menuId, `${m.name} (${(m.sections ?? []).reduce((n: number, s: any) => n + s.items.length, 0)} items)`, m.status)),
    ...challenges.items.map((c: any) => row("challenges", c.challengeId, `${c.name} (${c.challengeType})`, c.status)),
  ];
  return h("section", { id: "drafts" }, h("h2", {}, "Menus and challenges"), rows.length ? h("table", {}, h("tbody", {}, ...rows)) : h("p", { class: "muted" }, "No drafts yet."));
}

async function analyticsSection(): Promise<HTMLElement> {
  const summary = await api("/analytics?days=30");
  return h(
    "section",
    { id: "analytics" },
    h("h2", {}, `Scans: ${summary.totalScans} in the last 30 days`),
    chart(summary.byDay),
    h("p", { class: "muted" }, summary.byCampaign.map((c: any) => `${c.campaign ?? "(no campaign)"}: ${c.scans}`).join(" · ")),
  );
}

async function adminSection(): Promise<HTMLElement> {
  const { listings } = await api<{ listings: any[] }>("/listings?status=pending");
  const rows = listings.map((l) =>
    h(
      "tr",
      {},
      h("td", {}, l.domain),
      h("td", {}, l.businessName),
      h("td", {}, l.voiceAgentPhone),
      h("td", {}, button("Approve", async () => { await api(`/listings/${l.domain}/approve`, { method: "POST" }); await render(); }), " ", button("Reject", async () => { await api(`/listings/${l.domain}/reject`, { method: "POST" }); await render(); })),
    ),
  );
  return h("section", { id: "admin" }, h("h2", {}, "Pending phone book listings"), rows.length ? h("table", {}, h("tbody", {}, ...rows)) : h("p", { class: "muted" }, "Nothing to review."));
}

async function claimFromLink(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const token = params.get("claim");
  if (!token) return;
  history.replaceState(null, "", location.pathname);
  try {
    const result = await api("/claims", { body: { claimToken: token } });
    flash(`Claimed: ${result.code.title} is now a permanent code in your workspace.`);
  } catch (e) {
    flash(`Could not claim the code: ${(e as Error).message}`, true);
  }
}

async function render(): Promise<void> {
  const me = await api("/me");
  document.getElementById("who")!.replaceChildren(`${user!.email} · ${me.workspace?.name ?? ""} `, button("Sign out", () => signOut(getAuth()), { id: "sign-out" }));
  const sections = await Promise.all([keysSection(), connectedAppsSection({ api, h, button, render }), codesSection(), analyticsSection(), draftsSection(), ...(me.isAdmin ? [adminSection()] : [])]);
  const notices = [...app.querySelectorAll(".notice[role=status], .error")];
  app.replaceChildren(...notices, ...sections);
}

async function main(): Promise<void> {
  initializeApp(await firebaseConfig());
  const auth = getAuth();
  if (LOCAL) connectAuthEmulator(auth, `http://${location.hostname}:9099`, { disableWarnings: true });
  onAuthStateChanged(auth, async (u) => {
    user = u;
    if (!u) {
      document.getElementById("who")!.replaceChildren();
      signInView();
      return;
    }
    app.replaceChildren(h("p", {}, "Loading your workspace…"));
    await api("/workspace", { body: {} }); // created on first sign-in
    await claimFromLink();
    await render();
  });
}

void main();
