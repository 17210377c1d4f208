// The one table of tools. tools/list, the GET manifest and tools/call all read it.
import { z } from "zod";
import type { ToolAnnotations, ToolDefinition } from "./tool";
import { pingTool } from "./tools/ping";
import { merchantGetProfileTool } from "./tools/merchantGetProfile";
import { qrCreateTool } from "./tools/qrCreate";
import { qrListTool } from "./tools/qrList";
import { qrUpdateTool } from "./tools/qrUpdate";
import { qrGetAnalyticsTool } from "./tools/qrGetAnalytics";
import { analyticsScanSummaryTool } from "./tools/analyticsScanSummary";
import { audioCreateTool } from "./tools/audioCreate";
import { menuCreateTool } from "./tools/menuCreate";
import { menuListTool } from "./tools/menuList";
import { menuAddItemTool } from "./tools/menuAddItem";
import { challengeCreateTool } from "./tools/challengeCreate";
import { voiceAgentRegisterTool } from "./tools/voiceAgentRegister";
import { voiceAgentLookupTool } from "./tools/voiceAgentLookup";
import { brandListPresetsTool } from "./tools/brandListPresets";
import { webhookCreateTool } from "./tools/webhookCreate";
import { webhookListTool } from "./tools/webhookList";
import { webhookDeleteTool } from "./tools/webhookDelete";
import { webhookTestTool } from "./tools/webhookTest";
import { webhookRotateSecretTool } from "./tools/webhookRotateSecret";
import { webhookDeliveriesTool } from "./tools/webhookDeliveries";
import { jobStartTool } from "./tools/jobStart";
import { jobGetTool } from "./tools/jobGet";

export const TOOLS: readonly ToolDefinition[] = [
  pingTool,
  merchantGetProfileTool,
  qrCreateTool,
  qrListTool,
  qrUpdateTool,
  qrGetAnalyticsTool,
  analyticsScanSummaryTool,
  audioCreateTool,
  menuCreateTool,
  menuListTool,
  menuAddItemTool,
  challengeCreateTool,
  voiceAgentRegisterTool,
  voiceAgentLookupTool,
  brandListPresetsTool,
  webhookCreateTool,
  webhookListTool,
  webhookDeleteTool,
  webhookTestTool,
  webhookRotateSecretTool,
  webhookDeliveriesTool,
  jobStartTool,
  jobGetTool,
] as unknown as ToolDefinition[];

const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));

export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}

export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: ToolAnnotations & { title: string };
  _meta?: { ui: { resourceUri: string } };
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

let listing: ToolListing[] | undefined;

/**
 * The tools/list entries, derived once per instance from the zod schemas. Sorted by name, so the order
 * does not depend on where a tool sits in the table (clients cache the list; the snapshot test holds it).
 * `title` is given twice: top level (2025-06-18 and later) and in `annotations` (2025-03-26).
 */
export function toolListing(): ToolListing[] {
  listing ??= [...TOOLS]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchema(tool.input, "input"),
      outputSchema: jsonSchema(tool.output, "output"),
      annotations: { title: tool.title, ...tool.annotations },
      ...(tool.ui ? { _meta: { ui: { resourceUri: tool.ui } } } : {}),
    }));
  return listing;
}
