import { z } from "zod";
import { text } from "../../core/validation";
import { byName, listingOf, searchCatalog, TOOLSETS, TOOLSET_NAMES, toolsetsOf } from "../catalog";
import { getConfig } from "../../core/config";
import { defineTool, READ_ONLY } from "../tool";
import { itemsThatFit, jsonBytes } from "../resultBudget";

const SEARCH_MAX = 10;

const anyObject = z.record(z.string(), z.unknown());

export const toolsSearchTool = defineTool({
  name: "svc.tools.search",
  title: "Find a tool",
  description: "Finds tools by keywords (webhooks, brand presets, import jobs and more) and returns their full definitions, to run with svc.tools.execute.",
  scope: null,
  annotations: READ_ONLY,
  input: z
    .object({
      query: text(200).describe("Keywords, e.g. \"webhook secret\""),
      limit: z.number().int().min(1).max(SEARCH_MAX).optional().describe("Default 5"),
    })
    .strict(),
  output: z.object({
    tools: z.array(
      z.object({
        name: z.string(),
        title: z.string(),
        description: z.string(),
        inputSchema: anyObject,
        outputSchema: anyObject,
        annotations: anyObject,
        toolsets: z.array(z.string()),
      }),
    ),
    toolsets: z.array(z.object({ name: z.string(), url: z.string(), description: z.string() })),
    truncated: z.boolean(),
  }),
  async handler({ query, limit }) {
    const base = getConfig().mcpFunctionUrl;
    const tools = searchCatalog(query, limit ?? 5).map((tool) => {
      const { _meta: _ui, annotations, ...entry } = listingOf(tool, "full");
      return { ...entry, title: tool.title, annotations: { ...annotations }, toolsets: toolsetsOf(tool.name) };
    });
    const toolsets = byName(TOOLSET_NAMES.map((name) => ({ name, url: `${base}/x/${name}`, description: TOOLSETS[name].description })));
    // Best matches first, as many as fit in about 6,000 tokens (at least one).
    const fit = Math.max(1, itemsThatFit(tools, jsonBytes({ toolsets }) + 600));
    return { tools: tools.slice(0, fit), toolsets, truncated: fit < tools.length };
  },
  summarize: (r) =>
    r.tools.length
      ? `Found ${r.tools.map((t) => t.name).join(", ")}${r.truncated ? " (more matched; cut to stay within about 6,000 tokens: search with more words)" : ""}.`
      : "No tool matches; try other words, or connect to a toolset URL.",
});
