// The table of the service's tools, the toolsets they form and how tools/list publishes them. registry.ts
// adds the two tools that reach this table from the default list (svc.tools.search, svc.tools.execute).
import { z } from "zod";
import { MCP_TOOLSET_NAMES } from "../core/constants";
import { publishedHints, type ToolAnnotations, type ToolDefinition } from "./tool";
import { explainedInInstructions, listedAs, publishedSchema } from "./listingSchema";
import { pingTool } from "./tools/ping";
import { merchantGetProfileTool } from "./tools/merchantGetProfile";
import { qrCreateTool } from "./tools/qrCreate";
import { qrListTool } from "./tools/qrList";
import { qrUpdateTool } from "./tools/qrUpdate";
import { qrSetRulesTool } from "./tools/qrSetRules";
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
import { gs1ItemSetTool } from "./tools/gs1ItemSet";
import { gs1ItemListTool } from "./tools/gs1ItemList";
import { gs1ItemAnalyticsTool } from "./tools/gs1ItemAnalytics";
import { utmSetTemplateTool } from "./tools/utmSetTemplate";
import { domainAddTool } from "./tools/domainAdd";
import { domainListTool } from "./tools/domainList";
import { domainVerifyTool } from "./tools/domainVerify";
import { domainRemoveTool } from "./tools/domainRemove";
import { domainSetPageColoursTool } from "./tools/domainSetPageColours";
import { conversionTrackLeadTool } from "./tools/conversionTrackLead";
import { conversionTrackSaleTool } from "./tools/conversionTrackSale";
import { conversionReverseSaleTool } from "./tools/conversionReverseSale";
import { conversionRedeemDiscountTool } from "./tools/conversionRedeemDiscount";
import { conversionFiguresTool } from "./tools/conversionFigures";

/** The service's own tools, without the two that reach them (registry.ts). */
export const CATALOG_TOOLS: readonly ToolDefinition[] = [
  pingTool,
  merchantGetProfileTool,
  qrCreateTool,
  qrListTool,
  qrUpdateTool,
  qrSetRulesTool,
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
  gs1ItemSetTool,
  gs1ItemListTool,
  gs1ItemAnalyticsTool,
  utmSetTemplateTool,
  domainAddTool,
  domainListTool,
  domainVerifyTool,
  domainRemoveTool,
  domainSetPageColoursTool,
  conversionTrackLeadTool,
  conversionTrackSaleTool,
  conversionReverseSaleTool,
  conversionRedeemDiscountTool,
  conversionFiguresTool,
] as unknown as ToolDefinition[];

/** Groups of tools an agent can connect to by URL (`/api/mcp/x/<toolset>`); `core` is the specification's. */
export const TOOLSETS = {
  core: {
    description: "Codes, menus, audio codes, challenges, analytics and the voice-agent phone book",
    tools: ["svc.ping", "svc.merchant.get_profile", "svc.qr.create", "svc.qr.list", "svc.qr.update", "svc.qr.get_analytics", "svc.analytics.scan_summary", "svc.audio.create", "svc.menu.create", "svc.menu.list", "svc.menu.add_item", "svc.challenge.create", "svc.voice_agent.register", "svc.voice_agent.lookup"],
  },
  designs: {
    description: "Brand designs (colours or colors, logo, module and eye styles) and saved brand presets",
    tools: ["svc.brand.list_presets", "svc.qr.create", "svc.qr.update"],
  },
  webhooks: {
    description: "Signed webhook subscriptions (callbacks, notifications) to scan and code events, their deliveries and secrets",
    tools: ["svc.webhook.create", "svc.webhook.list", "svc.webhook.delete", "svc.webhook.test", "svc.webhook.rotate_secret", "svc.webhook.deliveries"],
  },
  campaigns: {
    description: "Campaign rules of dynamic codes: where a scan goes by device, place, language, time or query, A/B splits, schedules and fallbacks",
    tools: ["svc.qr.set_rules", "svc.utm.set_template", "svc.qr.update", "svc.qr.list"],
  },
  jobs: {
    description: "Import jobs that create or update up to 10,000 codes from rows (CSV or JSON), and their progress",
    tools: ["svc.job.start", "svc.job.get"],
  },
  gs1: {
    description: "GS1 Digital Link: GTINs and other GS1 keys (with lot, serial) and their links, served by the GS1-Conformant resolver",
    tools: ["svc.gs1.set_item", "svc.gs1.list_items", "svc.gs1.get_analytics"],
  },
  domains: {
    description: "Branded domains (custom domains, own hosts) for a workspace's codes: add, DNS records to create, verification and state",
    tools: ["svc.domain.add", "svc.domain.list", "svc.domain.verify", "svc.domain.remove", "svc.domain.set_page_colours"],
  },
  conversions: {
    description: "Conversion tracking (attribution): leads, sales, refunds and in-store discount redemptions reported against a scan's signed click id, and the figures: revenue per code, rule and A/B arm with each split's result",
    // A code's analytics carry its conversion figures: the set's read-only view lists them.
    tools: ["svc.conversion.track_lead", "svc.conversion.track_sale", "svc.conversion.reverse_sale", "svc.conversion.redeem_discount", "svc.conversion.figures", "svc.qr.get_analytics"],
  },
} as const satisfies Record<(typeof MCP_TOOLSET_NAMES)[number], { description: string; tools: readonly string[] }>;

export type ToolsetName = (typeof MCP_TOOLSET_NAMES)[number];
export const TOOLSET_NAMES: ToolsetName[] = [...MCP_TOOLSET_NAMES];

/** The toolsets a tool belongs to. */
export function toolsetsOf(name: string): ToolsetName[] {
  return TOOLSET_NAMES.filter((set) => (TOOLSETS[set].tools as readonly string[]).includes(name));
}

export interface ToolListing {
  name: string;
  /** Absent in a 2025-03-26 listing (registry.ts). */
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  /** `title` is absent in a 2026-07-28 listing (registry.ts). */
  /** MCP's defaults left out (tool.ts, publishedHints). */
  annotations: Partial<ToolAnnotations> & { title?: string };
  _meta?: { ui: { resourceUri: string } };
}

/**
 * How much of a schema a listing spells out. `full`: everything (toolset URLs, svc.tools.search, the
 * manifest). `default`: the default list, where a schema registered in `listedAs` (a long-tail argument
 * such as a brand design) is published as its short stand-in.
 */
export type ListingForm = "default" | "full";

function jsonSchema(schema: z.ZodType, io: "input" | "output", form: ListingForm): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io,
    override: (ctx) => {
      if (form === "full") return;
      // An explained id's pattern goes too: a client passes ids the server gave it and never makes one.
      if (explainedInInstructions.has(ctx.zodSchema as unknown as z.ZodType)) {
        delete (ctx.jsonSchema as Record<string, unknown>).description;
        delete (ctx.jsonSchema as Record<string, unknown>).pattern;
      }
      const stand = listedAs.get(ctx.zodSchema as unknown as z.ZodType);
      if (!stand) return;
      for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Record<string, unknown>)[key];
      Object.assign(ctx.jsonSchema, stand.json);
    },
  }) as Record<string, unknown>;
  delete json.$schema;
  return publishedSchema(json, io);
}

/** A result schema with its fields' descriptions left to the tool that describes the same record. */
function withoutDescriptions(schema: Record<string, unknown>): Record<string, unknown> {
  const strip = (node: unknown, isField: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => strip(n, false));
    if (typeof node !== "object" || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (isField && key === "description") continue;
      if (key === "properties" && typeof value === "object" && value !== null) out.properties = Object.fromEntries(Object.entries(value).map(([name, field]) => [name, strip(field, true)]));
      else out[key] = strip(value, false);
    }
    return out;
  };
  return strip(schema, false) as Record<string, unknown>;
}

/**
 * A result schema as the default list gives it when another tool there describes the same record: without
 * its fields' descriptions, and a nested record that tool spells out under the same name named by type only.
 */
function describedBy(schema: Record<string, unknown>, describing: Record<string, unknown>): Record<string, unknown> {
  const own = withoutDescriptions(schema);
  const theirs = (withoutDescriptions(describing).properties ?? {}) as Record<string, unknown>;
  const fields = Object.entries((own.properties ?? {}) as Record<string, Record<string, unknown>>).map(([name, field]) => {
    const text = JSON.stringify(field);
    return [name, text.includes('"properties"') && text === JSON.stringify(theirs[name]) ? { type: field.type } : field];
  });
  return { ...own, properties: Object.fromEntries(fields) };
}

const listings = new Map<string, ToolListing>();

/**
 * One tool's tools/list entry, derived once per instance from its zod schemas. `title` is given twice:
 * top level (2025-06-18 and later) and in `annotations` (2025-03-26).
 */
export function listingOf(tool: ToolDefinition, form: ListingForm = "full"): ToolListing {
  const key = `${form}\n${tool.name}`;
  let entry = listings.get(key);
  if (!entry) {
    entry = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchema(tool.input, "input", form),
      outputSchema:
        form === "default" && tool.outputDescribedBy
          ? describedBy(jsonSchema(tool.output, "output", form), listingOf(catalogTool(tool.outputDescribedBy)!, form).outputSchema)
          : jsonSchema(tool.output, "output", form),
      annotations: { title: tool.title, ...publishedHints(tool.annotations) },
      ...(tool.ui ? { _meta: { ui: { resourceUri: tool.ui } } } : {}),
    };
    listings.set(key, entry);
  }
  return entry;
}

/** Sorted by name, so the order does not depend on where a tool sits in a table (clients cache lists). */
export function byName<T extends { name: string }>(tools: readonly T[]): T[] {
  return [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const catalogByName = new Map(CATALOG_TOOLS.map((tool) => [tool.name, tool]));

/** A tool of the catalogue (not the two tools that reach it) by name. */
export function catalogTool(name: string): ToolDefinition | undefined {
  return catalogByName.get(name);
}

// ---- Finding a tool by its words (svc.tools.search).

/** Words split at camelCase, lower case, a plural's final s dropped: "Webhooks" and "webhook" meet. */
function stems(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1)
    .map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w));
}

interface SearchEntry {
  tool: ToolDefinition;
  /** Word → weight: the name's parts count most, then the title and toolsets, then the rest. */
  weights: Map<string, number>;
}

let searchIndex: SearchEntry[] | undefined;

function indexOf(): SearchEntry[] {
  searchIndex ??= CATALOG_TOOLS.map((tool) => {
    const weights = new Map<string, number>();
    const add = (text: string, weight: number) => {
      for (const w of stems(text)) weights.set(w, Math.max(weights.get(w) ?? 0, weight));
    };
    add(tool.description, 1);
    add(Object.keys(tool.input.shape).join(" "), 1);
    for (const set of toolsetsOf(tool.name)) add(`${set} ${set === "core" ? "" : TOOLSETS[set].description}`, 2);
    add(tool.title, 2);
    add(tool.name.replace(/^svc\./, ""), 3);
    return { tool, weights };
  });
  return searchIndex;
}

/** Tools whose words match the query, best first (ties by name); a word that matches nothing is ignored. */
export function searchCatalog(query: string, limit: number): ToolDefinition[] {
  const words = [...new Set(stems(query))];
  return indexOf()
    .map(({ tool, weights }) => ({ tool, score: words.reduce((sum, w) => sum + (weights.get(w) ?? 0), 0) }))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : 1))
    .slice(0, limit)
    .map((hit) => hit.tool);
}
