// JSON-RPC 2.0 dispatch for the MCP tool server. Knows nothing of express: it takes a parsed body and a
// lazy authenticator, and returns an HTTP status plus the body to send (or none, for 204).
import { AppError, toAppError } from "../core/errors";
import { MCP_PROTOCOL_VERSION, TOOL_SERVER_VERSION } from "../core/config";
import { parseOrThrow } from "../core/validation";
import { requireScope, type Caller } from "../auth/caller";
import { writeAuditEvent } from "../store/audit";
import { findTool, toolListing } from "./registry";
import { logError } from "../core/log";

export type JsonRpcId = string | number | null;

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result?: unknown;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

export interface RpcOutcome {
  status: number;
  body?: JsonRpcResponse | JsonRpcResponse[];
}

export const SERVER_INFO = { name: "svc-mcp", version: TOOL_SERVER_VERSION };

/** Maps an AppError to a JSON-RPC error object: the one place this surface shapes errors. */
export function rpcError(id: JsonRpcId, error: unknown): JsonRpcResponse {
  const err = toAppError(error);
  if (err.code === "INTERNAL") logError("tool server internal error", error);
  const data: Record<string, unknown> = { code: err.code, ...(err.hint ? { hint: err.hint } : {}), ...(err.details ?? {}) };
  return { jsonrpc: "2.0", id, error: { code: err.rpcCode, message: err.message, data } };
}

/** HTTP status for a single response: envelope and auth failures keep theirs, everything else is 200. */
function httpStatusFor(response: JsonRpcResponse | undefined, error?: AppError): number {
  if (!response) return 204;
  if (error && (error.rpcCode === -32600 || error.rpcCode === -32001)) return error.httpStatus;
  return 200;
}

interface Envelope {
  id: JsonRpcId;
  method: string;
  params: unknown;
  isNotification: boolean;
}

function readEnvelope(message: unknown): Envelope {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    throw new AppError("INVALID_REQUEST", "A JSON-RPC request must be an object");
  }
  const m = message as Record<string, unknown>;
  const id = m.id;
  const validId = id === undefined || id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
  if (m.jsonrpc !== "2.0") throw new AppError("INVALID_REQUEST", 'jsonrpc must be "2.0"');
  if (!validId) throw new AppError("INVALID_REQUEST", "id must be a string, a number or null");
  if (typeof m.method !== "string" || m.method.length === 0) throw new AppError("INVALID_REQUEST", "method is missing");
  return { id: (id ?? null) as JsonRpcId, method: m.method, params: m.params, isNotification: !("id" in m) };
}

function safeId(message: unknown): JsonRpcId {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

export type Authenticator = () => Promise<Caller>;

export class McpDispatcher {
  private callerPromise?: Promise<Caller>;

  constructor(private readonly authenticate: Authenticator) {}

  /** One HTTP request authenticates at most once, even for a batch. */
  private caller(): Promise<Caller> {
    this.callerPromise ??= this.authenticate();
    return this.callerPromise;
  }

  async handleBody(body: unknown): Promise<RpcOutcome> {
    if (Array.isArray(body)) {
      if (body.length === 0) return { status: 400, body: rpcError(null, new AppError("INVALID_REQUEST", "Empty batch")) };
      const responses = (await Promise.all(body.map((m) => this.handleMessage(m)))).flatMap((r) => (r.response ? [r.response] : []));
      return responses.length ? { status: 200, body: responses } : { status: 204 };
    }
    const { response, error } = await this.handleMessage(body);
    return { status: httpStatusFor(response, error), body: response };
  }

  private async handleMessage(message: unknown): Promise<{ response?: JsonRpcResponse; error?: AppError }> {
    let envelope: Envelope;
    try {
      envelope = readEnvelope(message);
    } catch (e) {
      const error = toAppError(e);
      return { response: rpcError(safeId(message), error), error };
    }
    // Notifications get no response (notifications/initialized is the only one MCP sends us).
    if (envelope.isNotification) return {};
    try {
      const result = await this.dispatch(envelope);
      return { response: { jsonrpc: "2.0", id: envelope.id, result } };
    } catch (e) {
      const error = toAppError(e);
      return { response: rpcError(envelope.id, error), error };
    }
  }

  private async dispatch({ method, params }: Envelope): Promise<unknown> {
    switch (method) {
      case "initialize":
        return {
          protocolVersion: MCP_PROTOCOL_VERSION,
          capabilities: { tools: { listChanged: false } },
          serverInfo: SERVER_INFO,
          instructions:
            "Tools act inside the merchant workspace of the calling key and only create drafts; the merchant publishes in the console.",
        };
      case "ping":
        return {};
      case "tools/list":
        await this.awaitCaller();
        return { tools: toolListing() };
      case "tools/call":
        return this.callTool(params);
      default:
        throw new AppError("METHOD_NOT_FOUND", `Method not supported: ${method}`);
    }
  }

  private async awaitCaller(): Promise<Caller> {
    const caller = await this.caller();
    await caller.background;
    return caller;
  }

  private async callTool(params: unknown): Promise<unknown> {
    const caller = await this.awaitCaller();
    const started = performance.now();
    const p = (typeof params === "object" && params !== null ? params : {}) as { name?: unknown; arguments?: unknown };
    const toolName = typeof p.name === "string" ? p.name.slice(0, 100) : "";
    let status = "ok";
    try {
      if (!toolName) throw new AppError("UNKNOWN_TOOL", "params.name is missing: name the tool to call");
      const tool = findTool(toolName);
      if (!tool) throw new AppError("UNKNOWN_TOOL", `Unknown tool: ${toolName}`, { hint: "tools/list names every tool." });
      requireScope(caller, tool.scope, `Tool ${tool.name}`);
      const args = parseOrThrow(tool.input, p.arguments ?? {}, `arguments for ${tool.name}`);
      const result = await tool.handler(args, { caller });
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      status = toAppError(error).code;
      throw error;
    } finally {
      await writeAuditEvent({
        merchantId: caller.merchantId,
        uid: caller.uid,
        authMethod: caller.authMethod,
        keyPrefix: caller.keyPrefix ?? null,
        tool: toolName || "(missing)",
        status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      }).catch((e) => logError("audit write failed", e));
    }
  }
}
