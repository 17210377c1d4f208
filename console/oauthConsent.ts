// The OAuth consent page (/oauth/consent?request=...): the same Firebase Auth sign-in as the console, then
// what the app asks for, with scopes the person may narrow, and the decision posted with the ID token.
// The server answers with the URL to send the browser back to (the app's redirect URI).
import { LOCAL, startFirebaseAuth } from "./firebaseAuth";
import { createUserWithEmailAndPassword, getAuth, GoogleAuthProvider, onAuthStateChanged, signInWithEmailAndPassword, signInWithPopup, type User } from "firebase/auth";

import { ASK_BY_NAME_SCOPES } from "../functions/src/core/constants";
// Types only: the consent API's own schemas (oauth/routes.ts declares the routes with them).
import type { DecisionResponseSchema, DecisionSchema, RequestDescriptionSchema } from "../functions/src/oauth/schemas";
import type { z } from "zod";
import { consoleClient } from "./api";

type RequestDescription = z.output<typeof RequestDescriptionSchema>;
type Decision = z.input<typeof DecisionSchema>;
type DecisionAnswer = z.output<typeof DecisionResponseSchema>;

const ASKED_BY_NAME: ReadonlySet<string> = new Set(ASK_BY_NAME_SCOPES);
const SCOPE_TEXT: Record<string, string> = {
  "merchant:read": "Read your workspace profile, codes, menus and scan analytics",
  "qr:write": "Create and change QR codes (as drafts)",
  "menu:write": "Create menus and add items (as drafts)",
  "audio:write": "Create audio codes (as drafts)",
  "challenge:write": "Create challenge codes (as drafts)",
  "webhooks:read": "See webhook endpoints and their delivery log",
  "webhooks:write": "Add, test, rotate and remove webhook endpoints that receive scan and code events",
  "domains:read": "See your branded domains and their DNS records",
  "domains:write": "Add, verify and remove branded domains (owners only)",
  "conversions:write": "Report leads, sales and refunds against your codes' scans, and change conversion tracking",
};
const app = document.getElementById("app")!;
const requestId = new URLSearchParams(location.search).get("request") ?? "";

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) el.append(c); // text nodes only: client names are attacker-chosen
  return el;
}

function showError(message: string): void {
  app.replaceChildren(h("section", {}, h("h2", {}, "Authorization stopped"), h("p", { class: "error", id: "consent-error" }, message)));
}

/** GET (no body) or POST (a decision) of the consent API; the answer typed by its route's schema. */
async function call(user: User, path: string): Promise<RequestDescription>;
async function call(user: User, path: string, body: Decision): Promise<DecisionAnswer>;
async function call(user: User, path: string, body?: Decision): Promise<RequestDescription | DecisionAnswer> {
  const res = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { Authorization: `Bearer ${await user.getIdToken()}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json: { error_description?: string; message?: string } = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json.error_description ?? json.message ?? res.statusText);
  return json as RequestDescription | DecisionAnswer;
}

function signInView(): void {
  const email = h("input", { type: "email", placeholder: "email", id: "email", autocomplete: "username" });
  const password = h("input", { type: "password", placeholder: "password", id: "password", autocomplete: "current-password" });
  const auth = getAuth();
  const act = (label: string, id: string, run: () => Promise<unknown>) => {
    const b = h("button", { id, type: "button" }, label);
    b.addEventListener("click", () => void run().catch((e) => showError(String((e as Error).message))));
    return b;
  };
  app.replaceChildren(
    h("section", {}, h("h2", {}, "Sign in to connect an app"), email, " ", password, " ",
      act("Sign in", "sign-in", () => signInWithEmailAndPassword(auth, email.value, password.value)), " ",
      act("Create account", "sign-up", () => createUserWithEmailAndPassword(auth, email.value, password.value)),
      LOCAL ? "" : act("Sign in with Google", "google", () => signInWithPopup(auth, new GoogleAuthProvider()))),
  );
}

async function consentView(user: User): Promise<void> {
  // Created on first sign-in, as the console does; a failure here shows in the request's own answer.
  await consoleClient(async () => ({ Authorization: `Bearer ${await user.getIdToken()}` }))("POST /workspace", { body: {} }).catch(() => undefined);
  const info = await call(user, `/oauth/requests/${encodeURIComponent(requestId)}`);
  const boxes = info.scopes.map((scope) => {
    const box = h("input", { type: "checkbox", name: "scope", value: scope, id: `scope-${scope.replace(":", "-")}` });
    box.checked = !ASKED_BY_NAME.has(scope); // webhooks send the workspace's scans elsewhere: the person ticks them
    return h("li", {}, h("label", {}, box, " ", h("code", {}, scope), " ", SCOPE_TEXT[scope] ?? ""));
  });
  const decide = async (approve: boolean) => {
    const ticked = new Set([...app.querySelectorAll<HTMLInputElement>("input[name=scope]:checked")].map((b) => b.value));
    const scopes = info.scopes.filter((s) => ticked.has(s));
    try {
      const { redirect } = await call(user, `/oauth/requests/${encodeURIComponent(requestId)}`, approve ? { approve, scopes } : { approve });
      location.assign(redirect);
    } catch (e) {
      showError(String((e as Error).message));
    }
  };
  const approve = h("button", { id: "approve", class: "primary", type: "button" }, "Allow");
  const deny = h("button", { id: "deny", type: "button" }, "Deny");
  approve.addEventListener("click", () => void decide(true)); // decide shows its own failure
  deny.addEventListener("click", () => void decide(false));
  app.replaceChildren(
    h("section", { id: "consent" },
      h("h2", {}, h("span", { id: "client-name" }, info.client.name), " wants to use your svc workspace"),
      // The name is the app's own claim; where it comes from is the one fact svc can vouch for.
      h("p", {}, "Name given by the app itself; ", h("strong", { id: "client-source" }, info.client.documentHost ? `its description is published on ${info.client.documentHost}` : "registered anonymously"), "."),
      h("p", { class: "error" }, "Unverified app: svc has not checked who runs it. Only continue if you started this connection yourself."),
      h("p", {}, "After you decide, you go back to ", h("strong", { id: "redirect-host" }, info.redirectHost), "."),
      h("p", {}, "Workspace: ", h("strong", { id: "workspace-name" }, info.workspace.name), ` (signed in as ${user.email ?? user.uid})`),
      h("p", {}, "It asks to:"),
      h("ul", { id: "scopes" }, ...boxes),
      h("p", { class: "muted" }, "Untick anything you do not want to allow. You can revoke access whenever you like under Connected apps in the console."),
      approve, " ", deny),
  );
}

async function main(): Promise<void> {
  if (!/^req_[0-9a-f]{32}$/.test(requestId)) return showError("This page needs an authorization request; start again from the app.");
  const auth = await startFirebaseAuth();
  onAuthStateChanged(auth, (u) => {
    if (!u) return signInView();
    app.replaceChildren(h("p", {}, "Loading the request…"));
    consentView(u).catch((e) => showError(String((e as Error).message)));
  });
}

void main();
