// What a tool is: a name, a scope, a strict zod input schema, and a handler that knows nothing of HTTP.
import type { z } from "zod";
import type { Caller } from "../auth/caller";
import type { Scope } from "../auth/scopes";

export interface ToolContext {
  caller: Caller;
}

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  /** Scope the caller must carry; null means any verified caller. */
  scope: Scope | null;
  input: Input;
  handler(args: z.infer<Input>, ctx: ToolContext): Promise<Record<string, unknown>>;
}

/** Identity helper that keeps the handler's argument type tied to the schema. */
export function defineTool<Input extends z.ZodObject>(tool: ToolDefinition<Input>): ToolDefinition<Input> {
  return tool;
}
