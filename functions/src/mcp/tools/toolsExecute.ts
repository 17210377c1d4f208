import { z } from "zod";
import { defineTool } from "../tool";

export const toolsExecuteTool = defineTool({
  name: "svc.tools.execute",
  title: "Run a tool by name",
  description: "Runs any tool by name, e.g. one found with svc.tools.search, with that tool's scope, rate limit and audit.",
  scope: null,
  // What the inner tool does is unknown here: claim nothing (the inner tool's own hints are in its definition).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  forwards: true,
  input: z
    .object({
      name: z.string().min(1).max(100).describe("The tool's name"),
      arguments: z.record(z.string(), z.unknown()).optional().describe("Its arguments, per its inputSchema"),
    })
    .strict(),
  output: z.object({
    tool: z.string(),
    summary: z.string(),
    result: z.record(z.string(), z.unknown()).describe("The tool's structuredContent, per its outputSchema"),
  }),
  async handler({ name, arguments: args }, { callTool }) {
    const { result, summary } = await callTool(name, args ?? {});
    return { tool: name, summary, result };
  },
  summarize: (r) => `${r.tool}: ${r.summary}`,
});
