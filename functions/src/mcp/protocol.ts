// JSON-RPC 2.0 dispatch for the MCP tool server. Knows nothing of express: it takes a parsed body, a lazy
// authenticator and what the transport binding reports (its protocol version header and its own checks),
// and returns an HTTP status plus the body to send (or none). Two protocol eras share the tool logic:
// 2025-03-26 (initialize handshake, batches) and 2026-07-28 (per-request `_meta`, era2026.ts).
import { AppError, toAppError } from "../core/errors";
import { MCP_PROTOCOL_VERSION } from "../core/config";
import { parseOrThrow } from "../core/validation";
import { requireScope, type Caller } from "../auth/caller";
import { writeAuditEvent } from "../store/audit";
import { DEFAULT_VIEW, listingFor, toolAt, type ListingEra, type ToolView } from "./registry";
import { callToolResult, type InnerCall, type TaskStart } from "./tool";
import { createTaskResult, negotiatesTasks, taskMethod, tasksCapabilityMissing } from "./tasks";
import { listResources, readResource } from "./ui/resources";
import { logError, logServerError, logWarn } from "../core/log";
import { SERVER_CAPABILITIES, SERVER_INFO, SERVER_INSTRUCTIONS } from "./identity";
import {
  carriesEnvelope,
  completeResult,
  discoverResult,
  eraOf,
  isModernVersion,
  MODERN_PROTOCOL_VERSION,
  readRequestEnvelope,
  REMOVED_METHODS,
  requireSupportedVersion,
} from "./era2026";

export { SERVER_INFO };

export type JsonRpcId = string | number | null;

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  /** Absent only on 2026-07-28 errors that answer no identifiable request. */
  id?: JsonRpcId;
  result?: unknown;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

export interface RpcOutcome {
  status: number;
  body?: JsonRpcResponse | JsonRpcResponse[];
}

/** A JSON-RPC message that passed the envelope checks. */
export interface RpcMessage {
  id: JsonRpcId;
  method: string;
  params: unknown;
  isNotification: boolean;
}

/** What the transport binding contributes to one HTTP request. */
export interface TransportContext {
  /** The `MCP-Protocol-Version` header, if sent. */
  protocolVersionHeader?: string;
  /** The binding's own checks of a 2026-07-28 message (HTTP: its headers against the body). */
  checkModernMessage?: (message: RpcMessage) => AppError | undefined;
}

/**
 * Maps an AppError to a JSON-RPC error object: the one place this surface shapes errors. An `undefined`
 * id leaves the member out (2026-07-28 ids are strings or integers, never null).
 */
export function rpcError(id: JsonRpcId | undefined, error: unknown): JsonRpcResponse {
  const err = toAppError(error);
  if (err.requestId) logServerError({ surface: "mcp", requestId: err.requestId, code: err.code }, error);
  const data: Record<string, unknown> = { code: err.code, ...(err.hint ? { hint: err.hint } : {}), ...(err.details ?? {}), ...(err.requestId ? { requestId: err.requestId } : {}) };
  return { jsonrpc: "2.0", ...(id === undefined ? {} : { id }), error: { code: err.rpcCode, message: err.message, data } };
}

/**
 * HTTP status of an error answer. Both eras: envelope errors (-32600) and authentication (-32001) keep
 * theirs; tool, params and handler errors are 200. 2026-07-28 adds: -32601 is 404, and its transport and
 * `_meta` checks (-32020, -32022, the envelope's -32602) are 400.
 */
function errorStatus(error: AppError, era: "2025-03-26" | "2026-07-28"): number {
  if (error.rpcCode === -32600 || error.rpcCode === -32001 || error.code === "RATE_LIMITED") return error.httpStatus;
  if (era === "2025-03-26") return 200;
  if (error.code === "METHOD_NOT_FOUND") return 404;
  if (error.code === "INVALID_META" || error.code === "HEADER_MISMATCH" || error.code === "UNSUPPORTED_PROTOCOL_VERSION" || error.code === "MISSING_CLIENT_CAPABILITY") return 400;
  return 200;
}

function readMessage(message: unknown): RpcMessage {
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

/** How a tools/call may run: as a task only when its request declared the tasks extension (2026-07-28). */
interface CallMode {
  tasks: boolean;
  /** MRTR answers sent with the call (`params.inputResponses`). */
  inputResponses?: Record<string, unknown>;
}

const SYNC: CallMode = { tasks: false };

/** Largest JSON-RPC batch one POST may carry (docs/mcp.md): each entry may be a tools/call. */
export const MAX_BATCH_ENTRIES = 20;

export class McpDispatcher {
  private callerPromise?: Promise<Caller>;

  /**
   * `beforeToolCall` runs once per tool run after its caller is known: the transport's rate limit. `view`
   * is the endpoint the request reached (the default one, toolsets, read-only).
   */
  constructor(
    private readonly authenticate: Authenticator,
    private readonly beforeToolCall: (caller: Caller) => Promise<unknown> = async () => undefined,
    private readonly view: ToolView = DEFAULT_VIEW,
  ) {}

  /** One HTTP request authenticates at most once, even for a batch. */
  private caller(): Promise<Caller> {
    this.callerPromise ??= this.authenticate();
    return this.callerPromise;
  }

  async handleBody(body: unknown, transport: TransportContext = {}): Promise<RpcOutcome> {
    if (Array.isArray(body)) {
      if (body.length === 0) return { status: 400, body: rpcError(null, new AppError("INVALID_REQUEST", "Empty batch")) };
      if (body.length > MAX_BATCH_ENTRIES) {
        const error = new AppError("INVALID_REQUEST", `A batch may hold at most ${MAX_BATCH_ENTRIES} messages; this one has ${body.length}`, {
          hint: "Split the batch, or send one message per POST.",
          details: { maxBatchEntries: MAX_BATCH_ENTRIES },
        });
        return { status: 400, body: rpcError(null, error) };
      }
      if (isModernVersion(transport.protocolVersionHeader) || body.some(carriesEnvelope)) {
        const error = new AppError("INVALID_REQUEST", `Batches are not part of protocol ${MODERN_PROTOCOL_VERSION}: send one JSON-RPC message per POST`);
        return { status: 400, body: rpcError(undefined, error) };
      }
      const responses = (await Promise.all(body.map((m) => this.handleLegacy(m)))).flatMap((r) => (r.response ? [r.response] : []));
      return responses.length ? { status: 200, body: responses } : { status: 204 };
    }
    if (eraOf(body, transport.protocolVersionHeader) === "2026-07-28") return this.handleModern(body, transport);
    const { response, error } = await this.handleLegacy(body);
    if (!response) return { status: 204 };
    return { status: error ? errorStatus(error, "2025-03-26") : 200, body: response };
  }

  // ---- 2025-03-26: as the specification describes (initialize, notifications answered 204, batches).

  private async handleLegacy(message: unknown): Promise<{ response?: JsonRpcResponse; error?: AppError }> {
    let envelope: RpcMessage;
    try {
      envelope = readMessage(message);
    } catch (e) {
      const error = toAppError(e);
      return { response: rpcError(safeId(message), error), error };
    }
    // Notifications get no response (notifications/initialized is the only one MCP sends us).
    if (envelope.isNotification) return {};
    try {
      const result = await this.dispatchLegacy(envelope);
      return { response: { jsonrpc: "2.0", id: envelope.id, result } };
    } catch (e) {
      const error = toAppError(e);
      return { response: rpcError(envelope.id, error), error };
    }
  }

  private async dispatchLegacy({ method, params }: RpcMessage): Promise<unknown> {
    switch (method) {
      case "initialize":
        return {
          protocolVersion: MCP_PROTOCOL_VERSION,
          capabilities: SERVER_CAPABILITIES,
          serverInfo: SERVER_INFO,
          instructions: SERVER_INSTRUCTIONS,
        };
      case "ping":
        return {};
      case "tools/list":
        return this.listTools("2025-03-26");
      case "tools/call":
        return this.callTool(params);
      case "resources/list":
      case "resources/templates/list":
      case "resources/read":
        return this.resources(method, params);
      default:
        throw new AppError("METHOD_NOT_FOUND", `Method not supported: ${method}`);
    }
  }

  // ---- 2026-07-28: one message per POST, checked in this order: JSON-RPC shape (400/-32600), the
  // transport's headers (400/-32020), the `_meta` envelope (400/-32602), the version (400/-32022), then
  // the method (404/-32601) and the same tool dispatch as 2025-03-26.

  private async handleModern(body: unknown, transport: TransportContext): Promise<RpcOutcome> {
    let message: RpcMessage;
    try {
      message = readMessage(body);
      if (!message.isNotification && (message.id === null || (typeof message.id === "number" && !Number.isInteger(message.id)))) {
        throw new AppError("INVALID_REQUEST", `id must be a string or an integer in protocol ${MODERN_PROTOCOL_VERSION}`);
      }
    } catch (e) {
      const id = safeId(body);
      return { status: 400, body: rpcError(id === null ? undefined : id, e) };
    }
    try {
      const mismatch = transport.checkModernMessage?.(message);
      if (mismatch) throw mismatch;
      const envelope = readRequestEnvelope(body);
      requireSupportedVersion(envelope.protocolVersion);
      // A notification the server accepts is answered 202 with no body (Streamable HTTP, 2026-07-28).
      if (message.isNotification) return { status: 202 };
      const result = await this.dispatchModern(message, negotiatesTasks(envelope.clientCapabilities));
      return { status: 200, body: { jsonrpc: "2.0", id: message.id, result: completeResult(message.method, result) } };
    } catch (e) {
      const error = toAppError(e);
      if (message.isNotification) return { status: error.httpStatus, body: rpcError(undefined, error) };
      return { status: errorStatus(error, "2026-07-28"), body: rpcError(message.id, error) };
    }
  }

  private async dispatchModern({ method, params }: RpcMessage, tasks: boolean): Promise<Record<string, unknown>> {
    switch (method) {
      case "server/discover":
        return discoverResult();
      case "tools/list":
        return this.listTools("2026-07-28");
      case "tools/call":
        return this.callTool(params, { tasks, inputResponses: inputResponsesOf(params) });
      case "tasks/get":
      case "tasks/update":
      case "tasks/cancel":
        return this.tasks(method, params, tasks);
      case "resources/list":
      case "resources/templates/list":
      case "resources/read":
        return this.resources(method, params);
      default: {
        const removed = Object.hasOwn(REMOVED_METHODS, method) ? REMOVED_METHODS[method] : undefined;
        throw new AppError("METHOD_NOT_FOUND", `Method not supported in protocol ${MODERN_PROTOCOL_VERSION}: ${method.slice(0, 100)}`, {
          hint: removed ?? "server/discover, tools/list, tools/call, resources/list, resources/templates/list, resources/read and (with the tasks extension) tasks/get, tasks/update and tasks/cancel are served.",
        });
      }
    }
  }

  // ---- Shared by both eras: authentication, scopes, audit and the tools.

  private async awaitCaller(): Promise<Caller> {
    const caller = await this.caller();
    await caller.background;
    return caller;
  }

  private async listTools(era: ListingEra): Promise<Record<string, unknown>> {
    await this.awaitCaller();
    return { tools: listingFor(this.view, era) };
  }

  /** The ui:// resources: static pages, behind the same credential as tools/list. */
  private async resources(method: string, params: unknown): Promise<Record<string, unknown>> {
    await this.awaitCaller();
    if (method === "resources/list") return { resources: listResources() };
    if (method === "resources/templates/list") return { resourceTemplates: [] };
    return readResource(params);
  }

  /** tasks/get, tasks/update, tasks/cancel (mcp/tasks.ts): counted against the caller's rate limit like a tool run. */
  private async tasks(method: string, params: unknown, negotiated: boolean): Promise<Record<string, unknown>> {
    if (!negotiated) throw tasksCapabilityMissing(method);
    const caller = await this.awaitCaller();
    await this.beforeToolCall(caller);
    return taskMethod(caller, method, params);
  }

  private async callTool(params: unknown, mode: CallMode = SYNC): Promise<Record<string, unknown>> {
    const caller = await this.awaitCaller();
    const p = (typeof params === "object" && params !== null ? params : {}) as { name?: unknown; arguments?: unknown };
    const toolName = typeof p.name === "string" ? p.name.slice(0, 100) : "";
    const outcome = await this.runTool(caller, toolName, p.arguments ?? {}, false, mode);
    if ("task" in outcome) return createTaskResult(outcome.task);
    if ("inputRequests" in outcome) return { resultType: "input_required", inputRequests: outcome.inputRequests };
    return callToolResult(outcome);
  }

  /**
   * One tool run: the endpoint's view, the tool's scope, the caller's rate limit, strict arguments, the
   * handler, and an audit event under the tool's name. A forwarding tool (svc.tools.execute) is neither
   * counted nor audited once it has forwarded: the inner run is, under the inner tool's name.
   */
  private async runTool(caller: Caller, toolName: string, rawArgs: unknown, inner: boolean, mode: CallMode = SYNC): Promise<InnerCall | TaskStart> {
    const started = performance.now();
    let status = "ok";
    let forwarded = false;
    // Every run that is refused is counted too (an unknown tool, a refused scope or view, bad arguments):
    // refusals cost an audit write, so they spend the caller's budget like any call. Counted once a run.
    let counted = false;
    const count = async () => {
      if (counted) return;
      counted = true;
      await this.beforeToolCall(caller);
    };
    try {
      let tool: ReturnType<typeof toolAt>;
      try {
        if (!toolName) throw new AppError("UNKNOWN_TOOL", "params.name is missing: name the tool to call");
        tool = toolAt(this.view, toolName);
        if (tool.forwards && inner) throw new AppError("UNKNOWN_TOOL", `${tool.name} runs other tools, not itself`);
        // A tool that runs only as a task refuses a client without the extension before anything else runs.
        if (tool.task?.support === "required" && !mode.tasks) throw tasksCapabilityMissing(`Tool ${tool.name}`);
        requireScope(caller, tool.scope, `Tool ${tool.name}`);
      } catch (error) {
        await count();
        throw error;
      }
      if (!tool.forwards) await count();
      let args: unknown;
      try {
        args = parseOrThrow(tool.input, rawArgs, `arguments for ${tool.name}`);
      } catch (error) {
        await count();
        throw error;
      }
      const ctx = {
        caller,
        inputResponses: mode.inputResponses,
        // An inner run is never a task (the sync mode): its answer is always a result.
        callTool: (name: string, innerArgs: unknown) => {
          forwarded = true;
          return this.runTool(caller, name.slice(0, 100), innerArgs, true) as Promise<InnerCall>;
        },
      };
      if (tool.task && mode.tasks) return await tool.task.start(args as never, ctx);
      const result = (await tool.handler(args as never, ctx)) as Record<string, unknown>;
      return { result, summary: tool.summarize(result as never) };
    } catch (error) {
      status = toAppError(error).code;
      throw error;
    } finally {
      if (!forwarded && auditAdmits(caller, status, Date.now())) {
        await writeAuditEvent({
          merchantId: caller.merchantId,
          uid: caller.uid,
          authMethod: caller.authMethod,
          keyPrefix: caller.keyPrefix ?? null,
          tool: toolName || "(missing)",
          status,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
        }).catch((e) => logError("audit.write_failed", "audit write failed", e));
      }
    }
  }
}

/** Audit events of rate-limited runs one credential writes a minute per instance; past them the refusals are only counted. */
export const RATE_LIMITED_AUDITS_PER_MINUTE = 10;
const RATE_LIMITED_AUDIT_SUBJECTS_MAX = 10_000;
const rateLimitedAudits = new Map<string, { minute: number; written: number; skipped: number }>();

/**
 * Whether a run's audit event is written. Every run within the caller's rate limit is (refusals included:
 * they are counted by the limit, so they are bounded by it); runs refused by the limit itself are written
 * RATE_LIMITED_AUDITS_PER_MINUTE a minute per credential, and the rest logged as one count a minute.
 */
function auditAdmits(caller: Caller, status: string, now: number): boolean {
  if (status !== "RATE_LIMITED") return true;
  const key = `${caller.merchantId}|${caller.keyPrefix ?? caller.uid}`;
  const minute = Math.floor(now / 60_000);
  let entry = rateLimitedAudits.get(key);
  if (!entry || entry.minute !== minute) {
    if (entry?.skipped) logWarn("audit.rate_limited_skipped", "audit events of rate-limited tool runs not written", { merchantId: caller.merchantId, skipped: entry.skipped });
    entry = { minute, written: 0, skipped: 0 };
    rateLimitedAudits.delete(key);
    rateLimitedAudits.set(key, entry);
    if (rateLimitedAudits.size > RATE_LIMITED_AUDIT_SUBJECTS_MAX) rateLimitedAudits.delete(rateLimitedAudits.keys().next().value!);
  }
  if (entry.written < RATE_LIMITED_AUDITS_PER_MINUTE) {
    entry.written += 1;
    return true;
  }
  entry.skipped += 1;
  return false;
}

/** `params.inputResponses` of a tools/call, when it is an object (MRTR answers). */
function inputResponsesOf(params: unknown): Record<string, unknown> | undefined {
  const value = typeof params === "object" && params !== null ? (params as Record<string, unknown>).inputResponses : undefined;
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
