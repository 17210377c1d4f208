// Every tool the server runs, and what each endpoint lists and accepts (docs/mcp.md, "Toolsets"). The
// default endpoint lists the specification's tools plus two that reach the rest: svc.tools.search (full
// definitions by keyword) and svc.tools.execute (run one by name). A toolset URL lists its toolsets' tools
// in full; a read-only endpoint lists, and runs, only tools that change nothing.
import { AppError } from "../core/errors";
import { publishedHints, READ_ONLY, type ToolDefinition } from "./tool";
import { byName, CATALOG_TOOLS, catalogTool, listingOf, TOOLSETS, TOOLSET_NAMES, type ToolListing, type ToolsetName } from "./catalog";
import { toolsSearchTool } from "./tools/toolsSearch";
import { toolsExecuteTool } from "./tools/toolsExecute";
import { fixtureTool } from "./fixtures";

export { TOOLSETS, TOOLSET_NAMES, type ToolListing, type ToolsetName };

const REACH_TOOLS = [toolsSearchTool, toolsExecuteTool] as unknown as ToolDefinition[];

/** Every tool, the catalogue's and the two that reach it. */
export const TOOLS: readonly ToolDefinition[] = [...CATALOG_TOOLS, ...REACH_TOOLS];

/** A tool by name; locally also the conformance fixtures, which are in no listing (mcp/fixtures/). */
export function findTool(name: string): ToolDefinition | undefined {
  return catalogTool(name) ?? REACH_TOOLS.find((tool) => tool.name === name) ?? fixtureTool(name);
}

/** Every tool in full: the manifest, the server card and the contract snapshot. */
export function toolListing(): ToolListing[] {
  return byName(TOOLS.map((tool) => listingOf(tool, "full")));
}

/** Which endpoint a request reached: the default one, or chosen toolsets; read-only or not. */
export interface ToolView {
  toolsets: "default" | ToolsetName[];
  readOnly: boolean;
}

export const DEFAULT_VIEW: ToolView = { toolsets: "default", readOnly: false };

/**
 * The view of an endpoint path below the tool server's own (`""`, `/readonly`, `/x/<a>,<b>`,
 * `/x/<a>/readonly`, `/x/all`); undefined for any other path.
 */
export function viewOfPath(rest: string): ToolView | undefined {
  const match = /^(?:\/x\/([a-z,]+))?(\/readonly)?\/?$/.exec(rest.toLowerCase());
  if (!match) return undefined;
  const readOnly = Boolean(match[2]);
  if (!match[1]) return { toolsets: "default", readOnly };
  const names = match[1] === "all" ? TOOLSET_NAMES : match[1].split(",");
  if (!names.length || !names.every((n): n is ToolsetName => (TOOLSET_NAMES as string[]).includes(n))) return undefined;
  return { toolsets: [...new Set(names)], readOnly };
}

function inView(tool: ToolDefinition, view: ToolView): boolean {
  if (view.readOnly && !tool.annotations.readOnlyHint && !tool.forwards) return false;
  if (view.toolsets === "default") return true;
  return view.toolsets.some((set) => (TOOLSETS[set].tools as readonly string[]).includes(tool.name));
}

export type ListingEra = "2025-03-26" | "2026-07-28";

/** A tool's display title once, where its era puts it: 2025-03-26 has only `annotations.title`. */
function titledFor(entry: ToolListing, era: ListingEra): ToolListing {
  if (era === "2025-03-26") {
    const { title: _title, ...rest } = entry;
    return rest as ToolListing;
  }
  const { title: _title, ...hints } = entry.annotations;
  return { ...entry, annotations: hints as ToolListing["annotations"] };
}

/** At a read-only endpoint execute can run only tools that change nothing: it says so there. */
function readOnlyHints(tool: ToolDefinition, view: ToolView, entry: ToolListing): ToolListing {
  if (!view.readOnly || !tool.forwards) return entry;
  return { ...entry, annotations: { title: entry.annotations.title, ...publishedHints(READ_ONLY) } };
}

const viewListings = new Map<string, ToolListing[]>();

/** What tools/list answers at an endpoint, in a protocol era. */
export function listingFor(view: ToolView, era: ListingEra = "2026-07-28"): ToolListing[] {
  const key = `${String(view.toolsets)}|${view.readOnly}|${era}`;
  let listing = viewListings.get(key);
  if (!listing) {
    const tools = view.toolsets === "default" ? [...TOOLSETS.core.tools].map((name) => catalogTool(name)!).concat(REACH_TOOLS) : CATALOG_TOOLS;
    const form = view.toolsets === "default" ? "default" : "full";
    listing = byName(tools.filter((tool) => inView(tool, view)).map((tool) => titledFor(readOnlyHints(tool, view, listingOf(tool, form)), era)));
    viewListings.set(key, listing);
  }
  return listing;
}

/**
 * The tool a tools/call at this endpoint may run. The default endpoint runs every tool by name, listed or
 * not (integrations from before toolsets keep working); a toolset URL runs its own tools; a read-only
 * endpoint refuses any tool that changes something, named directly or through svc.tools.execute.
 */
export function toolAt(view: ToolView, name: string): ToolDefinition {
  const tool = findTool(name);
  if (!tool) throw new AppError("UNKNOWN_TOOL", `Unknown tool: ${name}`, { hint: "tools/list names the tools here; svc.tools.search finds the rest." });
  if (view.readOnly && !tool.annotations.readOnlyHint && !tool.forwards) {
    throw new AppError("UNKNOWN_TOOL", `${name} changes data, and this endpoint is read-only`, { hint: "Call it at the endpoint without /readonly." });
  }
  if (view.toolsets !== "default" && !inView(tool, view)) {
    throw new AppError("UNKNOWN_TOOL", `${name} is not in the toolsets of this endpoint (${view.toolsets.join(", ")})`, {
      hint: "Call it at /api/mcp, or add its toolset to the URL.",
    });
  }
  return tool;
}
