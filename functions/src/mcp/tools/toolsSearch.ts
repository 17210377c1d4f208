import { z } from "zod";
import { text } from "../../core/validation";
import { byName, listingOf, searchCatalog, TOOLSETS, TOOLSET_NAMES, toolsetsOf } from "../catalog";
import { getConfig } from "../../core/config";
import { defineTool, READ_ONLY } from "../tool";

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
  }).describe("tools: definitions as tools/list gives them, with their toolsets"),
  async handler({ query, limit }) {
    const found = searchCatalog(query, limit ?? 5);
    const base = getConfig().mcpFunctionUrl;
    return {
      tools: found.map((tool) => {
        const { _meta: _ui, annotations, ...entry } = listingOf(tool, "full");
        return { ...entry, title: tool.title, annotations: { ...annotations }, toolsets: toolsetsOf(tool.name) };
      }),
      toolsets: byName(TOOLSET_NAMES.map((name) => ({ name, url: `${base}/x/${name}`, description: TOOLSETS[name].description }))),
    };
  },
  summarize: (r) => (r.tools.length ? `Found ${r.tools.map((t) => t.name).join(", ")}.` : "No tool matches; try other words, or connect to a toolset URL."),
});
