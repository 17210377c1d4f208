// What a tool is: a name and a title, a scope, what it does to the world (annotations), strict zod input
// and output schemas, a handler that knows nothing of HTTP, and a one-line summary of its result for people.
import type { z } from "zod";
import type { Caller } from "../auth/caller";
import type { Scope } from "../auth/scopes";

/** What one inner tools/call answered: its result and its sentence for people. */
export interface InnerCall {
  result: Record<string, unknown>;
  summary: string;
}

export interface ToolContext {
  caller: Caller;
  /** MRTR answers the client sent with this call (`params.inputResponses`, 2026-07-28), if any. */
  inputResponses?: Record<string, unknown>;
  /**
   * Runs another tool as if called by name at this endpoint: its scope, the caller's rate limit and an
   * audit event under its own name (svc.tools.execute).
   */
  callTool(name: string, args: unknown): Promise<InnerCall>;
}

/** The four MCP tool hints, all required: a client must not have to guess any of them. */
export interface ToolAnnotations {
  /** Changes nothing anywhere. */
  readOnlyHint: boolean;
  /** May overwrite or remove what exists (meaningful only when not read-only). */
  destructiveHint: boolean;
  /** Calling again with the same arguments changes nothing more. */
  idempotentHint: boolean;
  /** Reaches beyond the caller's own workspace (public listings, other businesses, mail). */
  openWorldHint: boolean;
}

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject, Output extends z.ZodObject = z.ZodObject> {
  name: string;
  /** Human display name (tools/list `title` and `annotations.title`). */
  title: string;
  description: string;
  /** Scope the caller must carry; null means any verified caller. */
  scope: Scope | null;
  annotations: ToolAnnotations;
  input: Input;
  /** The result's schema: tools/list publishes it as `outputSchema`, the handler's return type follows it. */
  output: Output;
  /**
   * The tool only forwards to another tool, which carries the scope, the rate limit and the audit event:
   * the dispatcher counts and audits the inner call, not this one (svc.tools.execute).
   */
  forwards?: true;
  /** A `ui://` resource (MCP Apps) a host may render with the result. */
  ui?: string;
  /**
   * Another tool whose default listing describes the same result record field by field (svc.qr.create for
   * svc.qr.list's codes): this tool's default listing names and types the fields without repeating their
   * descriptions, and names by type only a nested record that tool spells out under the same name.
   */
  outputDescribedBy?: string;
  /**
   * Runs as an MCP task for clients that negotiated the tasks extension (mcp/tasks.ts): `optional` tools
   * answer others with `handler`'s result, `required` ones refuse them with -32021.
   */
  task?: {
    support: "optional" | "required";
    start(args: z.infer<Input>, ctx: ToolContext): Promise<TaskStart>;
  };
  handler(args: z.infer<Input>, ctx: ToolContext): Promise<z.infer<Output>>;
  /** A short text a person can read in place of the JSON. */
  summarize(result: z.infer<Output>): string;
}

/** What a task's wire view holds (SEP-2663 `Task`, DetailedTask on tasks/get). */
export interface TaskView {
  taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  statusMessage?: string;
  inputRequests?: Record<string, Record<string, unknown>>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A task-running tool's answer: the task it created, or (MRTR) the input it needs before it can. */
export type TaskStart = { task: TaskView } | { inputRequests: Record<string, Record<string, unknown>> };

/** A tools/call result: a sentence for people first, then the JSON for clients that do not read structuredContent. */
export function callToolResult({ result, summary }: InnerCall, isError = false): Record<string, unknown> {
  return {
    content: [
      { type: "text", text: summary },
      { type: "text", text: JSON.stringify(result) },
    ],
    structuredContent: result,
    ...(isError ? { isError: true } : {}),
  };
}

/** Identity helper that keeps the handler's argument and result types tied to the schemas. */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(tool: ToolDefinition<Input, Output>): ToolDefinition<Input, Output> {
  return tool;
}

/** What MCP assumes of a hint a tool leaves out (ToolAnnotations in the specification, every revision). */
export const HINT_DEFAULTS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/**
 * The hints as tools/list publishes them: each tool decides all four, the listing omits those equal to
 * MCP's defaults and, for a read-only tool, the two MCP reads only of tools that change something.
 * Read back with MCP's defaults they are exactly the tool's four (test/unit/mcp-tools-list.test.ts).
 */
export function publishedHints(hints: ToolAnnotations): Partial<ToolAnnotations> {
  const meaningless = hints.readOnlyHint ? ["destructiveHint", "idempotentHint"] : [];
  return Object.fromEntries(
    (Object.keys(HINT_DEFAULTS) as (keyof ToolAnnotations)[]).filter((k) => hints[k] !== HINT_DEFAULTS[k] && !meaningless.includes(k)).map((k) => [k, hints[k]]),
  );
}

/** Hints of a tool that only reads the caller's workspace. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Hints of a tool that adds a new draft each call. */
export const CREATES_DRAFT: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
