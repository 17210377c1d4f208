import { mcpUrl } from "./env";

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export async function postRaw(body: string, headers: Record<string, string> = {}, url = mcpUrl()): Promise<HttpResult> {
  const res = await fetch(url, { method: "POST", headers, body });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
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

/** The structured result of a successful tools/call, after checking the MCP result shape. */
export function toolResult(res: HttpResult): any {
  if (res.status !== 200 || !res.body?.result) throw new Error(`tool call failed: ${res.status} ${res.text}`);
  const { content, structuredContent } = res.body.result;
  if (!Array.isArray(content) || content[0]?.type !== "text") throw new Error("result has no text content");
  if (JSON.stringify(JSON.parse(content[0].text)) !== JSON.stringify(structuredContent)) {
    throw new Error("text content and structuredContent disagree");
  }
  return structuredContent;
}
