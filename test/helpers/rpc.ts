import { mcpUrl } from "./env";

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** Status, headers, text and (when it is JSON) the parsed body of a response. */
export async function readAnswer(res: Response): Promise<HttpResult> {
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export async function postRaw(body: string, headers: Record<string, string> = {}, url = mcpUrl()): Promise<HttpResult> {
  return readAnswer(await fetch(url, { method: "POST", headers, body }));
}

let nextId = 1;

/** One JSON-RPC request to the tool server. */
export function rpc(method: string, params?: unknown, credential?: string, extraHeaders: Record<string, string> = {}) {
  const headers: Record<string, string> = { "Content-Type": "application/json", ...extraHeaders };
  if (credential) headers.Authorization = `Bearer ${credential}`;
  return postRaw(JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, ...(params === undefined ? {} : { params }) }), headers);
}

export function callTool(name: string, args: unknown, credential?: string, extraHeaders?: Record<string, string>) {
  return rpc("tools/call", { name, arguments: args }, credential, extraHeaders);
}

/**
 * A tool result's content: a sentence for people (not JSON), then the JSON of structuredContent for
 * clients that read only text.
 */
export function checkToolContent(content: any, structuredContent: unknown): void {
  if (!Array.isArray(content) || content.length !== 2 || content.some((c) => c?.type !== "text")) throw new Error("result content is not [summary, JSON]");
  const summary: string = content[0].text;
  if (!summary.trim() || summary.trimStart().startsWith("{")) throw new Error(`the first text is not a summary: ${summary.slice(0, 80)}`);
  if (JSON.stringify(JSON.parse(content[1].text)) !== JSON.stringify(structuredContent)) {
    throw new Error("text content and structuredContent disagree");
  }
}

/** The structured result of a successful tools/call, after checking the MCP result shape. */
export function toolResult(res: HttpResult): any {
  if (res.status !== 200 || !res.body?.result) throw new Error(`tool call failed: ${res.status} ${res.text}`);
  const { content, structuredContent } = res.body.result;
  checkToolContent(content, structuredContent);
  return structuredContent;
}

/** The per-request `_meta` of MCP 2026-07-28. */
export const ENVELOPE_2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "svc-test", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
} as const;

export interface Rpc2026Options {
  credential?: string;
  /** Header overrides, names case-insensitive; `null` leaves the header out. */
  headers?: Record<string, string | null>;
  /** Replaces params._meta (`null` sends params without _meta). */
  meta?: Record<string, unknown> | null;
  id?: string | number | null;
  /** Send as a notification (no id). */
  notification?: boolean;
}

/**
 * One MCP 2026-07-28 request: `_meta` in params and the standard headers mirroring the body
 * (MCP-Protocol-Version, Mcp-Method, and Mcp-Name for tools/call).
 */
export function rpc2026(method: string, params: Record<string, unknown> = {}, options: Rpc2026Options = {}) {
  const meta = options.meta === undefined ? ENVELOPE_2026 : options.meta;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": String(meta?.["io.modelcontextprotocol/protocolVersion"] ?? "2026-07-28"),
    "mcp-method": method,
  };
  if (method === "tools/call" && typeof params.name === "string") headers["mcp-name"] = params.name;
  if (method === "resources/read" && typeof params.uri === "string") headers["mcp-name"] = params.uri;
  if (options.credential) headers.authorization = `Bearer ${options.credential}`;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    if (value !== null) headers[name] = value;
  }
  const body = {
    jsonrpc: "2.0",
    ...(options.notification ? {} : { id: options.id === undefined ? nextId++ : options.id }),
    method,
    params: meta === null ? params : { ...params, _meta: meta },
  };
  return postRaw(JSON.stringify(body), headers);
}

/** Every code of a workspace through svc.qr.list, page after page (pages are cut to stay within about 6,000 tokens). */
export async function listAllCodes(credential: string): Promise<any[]> {
  const codes: any[] = [];
  let cursor: string | undefined;
  do {
    const page = toolResult(await callTool("svc.qr.list", { limit: 100, ...(cursor ? { cursor } : {}) }, credential));
    codes.push(...page.codes);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return codes;
}
