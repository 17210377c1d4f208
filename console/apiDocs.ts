// /docs/ API reference: renders /api/openapi.json (data, never markup) grouped by tag, with one copyable
// curl example per operation. DOM built with createElement/textContent only (CSP: script-src 'self').

/**
 * A node of the OpenAPI document as this page reads it: a schema, a parameter, a request body, a response,
 * an operation or a reference, so every field is optional. The document is data (never markup) whose
 * shape the page does not trust beyond these fields.
 */
type DocNode = {
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
  type?: string | string[];
  oneOf?: DocNode[];
  anyOf?: DocNode[];
  allOf?: DocNode[];
  items?: DocNode;
  format?: string;
  pattern?: string;
  properties?: Record<string, DocNode>;
  /** A schema's required fields, or whether a parameter or body is required. */
  required?: string[] | boolean;
  description?: string;
  example?: unknown;
  examples?: Record<string, DocNode>;
  default?: unknown;
  value?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  name?: string;
  in?: string;
  schema?: DocNode;
  content?: Record<string, DocNode>;
  parameters?: DocNode[];
  requestBody?: DocNode;
  responses?: Record<string, DocNode>;
  security?: Array<Record<string, string[]>>;
  operationId?: string;
  summary?: string;
  servers?: Array<{ url: string }>;
  tags?: string[];
};

/** The document itself. */
type Doc = {
  openapi?: string;
  info?: { version?: string };
  paths?: Record<string, Record<string, DocNode | undefined>>;
  tags?: Array<{ name: string; description?: string }>;
  security?: Array<Record<string, string[]>>;
  components?: { securitySchemes?: Record<string, { type?: string }> };
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

/** `obj`, or what its $ref (a JSON pointer into the document) points at, followed up to 10 times. */
function deref(doc: Doc, obj: DocNode | undefined): DocNode {
  let o: unknown = obj;
  for (let i = 0; i < 10; i++) {
    const ref = isObject(o) ? o.$ref : undefined;
    if (typeof ref !== "string") break;
    o = ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<unknown>((a, k) => (isObject(a) ? a[k.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined), doc);
  }
  return isObject(o) ? (o as DocNode) : {};
}

function typeOf(s: DocNode | undefined): string {
  if (!s) return "anything";
  if (s.const !== undefined) return `const ${JSON.stringify(s.const)}`;
  if (s.enum) return s.enum.map((v: unknown) => JSON.stringify(v)).join(" | ");
  const t = Array.isArray(s.type) ? s.type.join(" | ") : s.type ?? (s.oneOf || s.anyOf ? "one of several" : "anything");
  if (t === "array") return `array of ${typeOf(s.items)}`;
  return s.format ? `${t} (${s.format})` : t;
}

function limitsOf(s: DocNode | undefined): string {
  const parts: string[] = [];
  const pairs: Array<["minLength" | "maxLength" | "minimum" | "maximum" | "minItems" | "maxItems", string]> = [["minLength", "min length"], ["maxLength", "max length"], ["minimum", "min"], ["maximum", "max"], ["minItems", "min items"], ["maxItems", "max items"]];
  for (const [k, label] of pairs) if (s?.[k] !== undefined) parts.push(`${label} ${s[k]}`);
  if (s?.type === "array" && s.items) {
    const inner = limitsOf(s.items);
    if (inner) parts.push(`each: ${inner}`);
  }
  return parts.join(", ");
}

/** Text whose `backtick` spans (the document's descriptions are Markdown) become code elements. */
function withCode<T extends HTMLElement>(node: T, text: string): T {
  text.split("`").forEach((part, i) => node.append(i % 2 ? el("code", part) : document.createTextNode(part)));
  return node;
}

/** Names each cell after its column, so a phone, which stacks a row's cells, can still say what each one is. */
function labelled(tr: HTMLTableRowElement, headers: string[]): HTMLTableRowElement {
  [...tr.cells].forEach((cell, i) => cell.setAttribute("data-label", headers[i] ?? ""));
  return tr;
}

/** A "Limits and notes" cell; a pattern is shown as code that may wrap anywhere (it is not a word). */
function notesCell(schema: DocNode | undefined, description?: string): HTMLTableCellElement {
  const td = el("td", [limitsOf(schema), description].filter(Boolean).join(". "));
  const pattern = schema?.pattern ?? schema?.items?.pattern;
  if (typeof pattern === "string") {
    td.append(document.createTextNode(td.textContent ? ". Pattern " : "Pattern "), el("code", pattern, "long"));
  }
  return td;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function curlOf(doc: Doc, origin: string, method: string, path: string, op: DocNode): string {
  let url = path;
  const query: string[] = [];
  const headers: string[] = [];
  for (const raw of op.parameters ?? []) {
    const p = deref(doc, raw);
    const ex = p.example ?? p.schema?.example ?? Object.values(p.examples ?? {}).map((e) => deref(doc, e).value)[0] ?? p.schema?.default ?? `<${p.name}>`;
    if (p.in === "path") url = url.replace(`{${p.name}}`, encodeURIComponent(String(ex)));
    else if (p.in === "query" && p.required) query.push(`${encodeURIComponent(p.name ?? "")}=${encodeURIComponent(String(ex))}`);
    else if (p.in === "header" && p.required) headers.push(`-H ${shellQuote(`${p.name}: ${ex}`)}`);
  }
  const lines = [`curl -sS -X ${method.toUpperCase()} ${shellQuote(origin + url + (query.length ? `?${query.join("&")}` : ""))}`];
  const sec = op.security ?? doc.security ?? [];
  const schemes = sec.flatMap((r) => Object.keys(r));
  if (schemes.includes("apiKey")) lines.push(`-H 'Authorization: Bearer sk-svc-…'`);
  else if (schemes.length) {
    const s = doc.components?.securitySchemes?.[schemes[0]];
    if (s?.type === "http") lines.push(`-H 'Authorization: Bearer <token>'`);
  }
  lines.push(...headers);
  const content = deref(doc, op.requestBody).content ?? {};
  const [mediaType] = Object.keys(content);
  if (mediaType) {
    const media = content[mediaType];
    const value = deref(doc, Object.values(media.examples ?? {})[0]).value ?? media.example ?? {};
    const fields = isObject(value) ? Object.entries(value) : [];
    lines.push(`-H ${shellQuote(`Content-Type: ${mediaType}`)}`);
    if (mediaType === "application/x-www-form-urlencoded") lines.push(`--data ${shellQuote(new URLSearchParams(fields.map(([k, v]) => [k, String(v)])).toString())}`);
    else lines.push(`--data ${shellQuote(JSON.stringify(value))}`);
  }
  return lines.join(" \\\n  ");
}

function fieldsTable(doc: Doc, schema: DocNode | undefined): HTMLElement {
  const s = deref(doc, schema);
  const props = s.properties ?? {};
  const required = new Set<string>(Array.isArray(s.required) ? s.required : []);
  const names = Object.keys(props);
  if (!names.length) return el("p", `Body: ${typeOf(s)}`);
  const table = el("table");
  const head = el("tr");
  for (const h of ["Field", "Type", "Required", "Limits and notes"]) head.append(el("th", h));
  table.append(head);
  for (const name of names) {
    const p = deref(doc, props[name]);
    const tr = el("tr");
    const code = el("code", name);
    const td = el("td");
    td.append(code);
    tr.append(td, el("td", typeOf(p)), el("td", required.has(name) ? "yes" : "no"), notesCell(p, p.description));
    table.append(labelled(tr, ["Field", "Type", "Required", "Limits and notes"]));
  }
  return table;
}

function errorCodes(doc: Doc, schema: DocNode | undefined): string[] {
  const s = deref(doc, schema);
  for (const part of s.allOf ?? []) {
    const props = deref(doc, part).properties;
    const e = props?.code?.enum ?? props?.error?.enum;
    if (e) return e.map(String);
  }
  return [];
}

let opCount = 0;
function operation(doc: Doc, origin: string, method: string, path: string, op: DocNode): HTMLElement {
  const n = ++opCount;
  const section = el("section", undefined, "op");
  section.id = op.operationId ?? `op-${n}`;
  const h = el("h4");
  h.append(el("span", method.toUpperCase(), "method"), " ", el("code", path));
  section.append(h);
  if (op.summary) section.append(el("p", op.summary, "summary"));
  // Paragraphs of the Markdown description, with its `code` spans shown as code.
  for (const para of String(op.description ?? "").split(/\n\s*\n/).filter(Boolean)) section.append(withCode(el("p"), para));
  section.append(el("p", `Operation id: ${op.operationId ?? "—"}`, "opid"));

  const sec = op.security ?? doc.security ?? [];
  const schemes = sec.flatMap((r) => Object.entries(r).map(([k, scopes]) => (Array.isArray(scopes) && scopes.length ? `${k} (${scopes.join(", ")})` : k)));
  section.append(el("p", schemes.length ? `Authentication: one of ${schemes.join(", ")}` : "Authentication: none"));

  const params = (op.parameters ?? []).map((p) => deref(doc, p));
  if (params.length) {
    section.append(el("h5", "Parameters"));
    const table = el("table");
    const head = el("tr");
    for (const t of ["Name", "In", "Type", "Required", "Notes"]) head.append(el("th", t));
    table.append(head);
    for (const p of params) {
      const tr = el("tr");
      const td = el("td");
      td.append(el("code", p.name ?? ""));
      tr.append(td, el("td", p.in ?? ""), el("td", typeOf(p.schema)), el("td", p.required ? "yes" : "no"), notesCell(p.schema, p.description));
      table.append(labelled(tr, ["Name", "In", "Type", "Required", "Notes"]));
    }
    section.append(table);
  }

  const body = deref(doc, op.requestBody);
  for (const [mediaType, media] of Object.entries(body.content ?? {})) {
    section.append(el("h5", `Request body (${mediaType}${body.required ? ", required" : ""})`));
    section.append(fieldsTable(doc, media.schema));
  }

  section.append(el("h5", "Responses"));
  const list = el("ul", undefined, "responses");
  for (const [status, raw] of Object.entries(op.responses ?? {})) {
    const r = deref(doc, raw);
    const types = Object.keys(r.content ?? {});
    const codes = Object.values(r.content ?? {}).flatMap((m) => errorCodes(doc, m.schema));
    const li = el("li");
    li.append(el("strong", status), ` ${codes.length ? "" : r.description ?? ""}`);
    if (codes.length) codes.forEach((c, i) => li.append(i ? ", " : "", el("code", c)));
    if (types.length) li.append(` (${types.join(", ")})`);
    list.append(li);
  }
  section.append(list);

  const serverUrl = op.servers?.[0]?.url;
  const curl = curlOf(doc, serverUrl && !/127\.0\.0\.1|localhost/.test(serverUrl) && serverUrl !== location.origin ? serverUrl : location.origin, method, path, op);
  const bar = el("div", undefined, "copybar");
  const label = el("h5", "Example");
  const button = el("button", "Copy", "copy");
  button.type = "button";
  button.setAttribute("aria-label", `Copy the curl example of ${op.operationId ?? path}`);
  const status = el("span", "", "copied");
  status.setAttribute("role", "status");
  const pre = el("pre", curl, "curl");
  pre.tabIndex = 0;
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- it catches every failure itself
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(pre.textContent ?? "");
      status.textContent = "Copied";
    } catch {
      const range = document.createRange();
      range.selectNodeContents(pre);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      status.textContent = "Selected: press Ctrl+C";
    }
  });
  bar.append(label, button, status);
  section.append(bar, pre);
  return section;
}

async function main() {
  const root = document.getElementById("api-reference");
  if (!root) return;
  const state = document.getElementById("api-reference-status");
  try {
    const res = await fetch("/api/openapi.json", { headers: { Accept: "application/json" } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const doc: Doc = await res.json();
    const byTag = new Map<string, HTMLElement[]>();
    const methods = ["get", "put", "post", "patch", "delete", "head", "options"];
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const m of methods) {
        const op = item[m];
        if (!op) continue;
        const tag = op.tags?.[0] ?? "Other";
        if (!byTag.has(tag)) byTag.set(tag, []);
        byTag.get(tag)!.push(operation(doc, location.origin, m, path, op));
      }
    }
    const tagInfo = new Map((doc.tags ?? []).map((t) => [t.name, t]));
    const order = [...(doc.tags ?? []).map((t) => t.name), ...byTag.keys()].filter((t, i, a) => byTag.has(t) && a.indexOf(t) === i);
    const nav = el("ul", undefined, "toc");
    for (const tag of order) {
      const id = `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
      const a = el("a", tag);
      a.href = `#${id}`;
      const li = el("li");
      li.append(a);
      nav.append(li);
      const group = el("section", undefined, "tag");
      group.id = id;
      group.append(el("h3", tag));
      const desc = tagInfo.get(tag)?.description;
      if (desc) group.append(el("p", desc));
      group.append(...byTag.get(tag)!);
      root.append(group);
    }
    root.prepend(nav);
    if (state) state.textContent = `${[...byTag.values()].flat().length} operations, from OpenAPI ${doc.openapi} (${doc.info?.version ?? ""}).`;
    root.setAttribute("data-ready", "true");
  } catch (e) {
    if (state) state.textContent = `The reference could not be loaded (${(e as Error).message}); read /api/openapi.json directly.`;
  }
}

void main();
