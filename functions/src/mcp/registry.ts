// The one table of tools. tools/list, the GET manifest and tools/call all read it.
import { z } from "zod";
import type { ToolDefinition } from "./tool";
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
] as unknown as ToolDefinition[];

const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));

export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}

export interface ToolListing {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

let listing: ToolListing[] | undefined;

/** JSON Schemas are derived once per instance from the zod inputs. */
export function toolListing(): ToolListing[] {
  listing ??= TOOLS.map((tool) => {
    const inputSchema = z.toJSONSchema(tool.input, { io: "input" }) as Record<string, unknown>;
    delete inputSchema.$schema;
    return { name: tool.name, description: tool.description, inputSchema };
  });
  return listing;
}
