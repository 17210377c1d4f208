// The JSON Schemas tools/list publishes, said once (docs/mcp.md, "Context budget"). zod's JSON Schema repeats what a client needs nothing
// of (every integer's ±2^53 bounds, `propertyNames` on string-keyed records) and, for results, what the
// input schema already said (enums, patterns, lengths) or what the server never relies on a client to
// check (`additionalProperties: false`). Input objects keep `additionalProperties: false` at every level:
// clients build strict function-calling schemas from them. The zod schemas stay strict on both sides: the
// server still validates every input and every result against them.
import { z } from "zod";

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Listing-only stand-ins: a schema registered here is published in tools/list as the given JSON instead
 * of its own (e.g. svc.qr.update's design, which is svc.qr.create's, named there in full). A registry of
 * its own, so the OpenAPI document and validation never see it.
 */
export const listedAs = z.registry<{ json: Record<string, unknown> }>();

/**
 * Arguments whose meaning the server's instructions give once (outputs.ts, ARGUMENT_CONVENTIONS), under
 * the name they have there: the default list publishes them without their own description.
 */
export const explainedInInstructions = z.registry<{ name: string }>();

type Json = Record<string, unknown>;

const OUTPUT_ONLY_DROPS = ["additionalProperties", "enum", "const", "pattern", "format", "minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];

function isNullSchema(s: unknown): boolean {
  return typeof s === "object" && s !== null && (s as Json).type === "null" && Object.keys(s as Json).length === 1;
}

function compact(node: unknown, io: "input" | "output"): unknown {
  if (Array.isArray(node)) return node.map((n) => compact(n, io));
  if (typeof node !== "object" || node === null) return node;
  const src = node as Json;
  const out: Json = {};
  for (const [key, value] of Object.entries(src)) {
    if ((key === "minimum" && value === -SAFE) || (key === "maximum" && value === SAFE)) continue;
    if (key === "propertyNames" && JSON.stringify(value) === '{"type":"string"}') continue;
    // `additionalProperties: {}` (any value) is what JSON Schema assumes anyway; an argument that is a map
    // keeps it, so that every input object says whether it is open (a map) or closed.
    if (io === "output" && key === "additionalProperties" && JSON.stringify(value) === "{}") continue;
    if (io === "output" && OUTPUT_ONLY_DROPS.includes(key) && !(key === "additionalProperties" && typeof value === "object")) continue;
    // The server's instructions say once that string arguments are never empty.
    if (io === "input" && key === "minLength" && value === 1) continue;
    // A named format (email, uri) says what zod's long pattern for it says.
    if (key === "pattern" && typeof src.format === "string") continue;
    if (key === "properties" && typeof value === "object" && value !== null) {
      out.properties = Object.fromEntries(Object.entries(value as Json).map(([name, s]) => [name, compact(s, io)]));
      continue;
    }
    out[key] = compact(value, io);
  }
  // A result object whose fields are all always present lists no `required`: the server's instructions
  // say once that every result field is present (null when empty) unless its schema's `required` omits it.
  if (io === "output" && out.type === "object" && Array.isArray(out.required) && out.properties) {
    const names = Object.keys(out.properties as Json);
    if (names.length === out.required.length && names.every((n) => (out.required as string[]).includes(n))) delete out.required;
  }
  // `anyOf: [{type: T}, {type: "null"}]` is `type: [T, "null"]`.
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2 && anyOf.some(isNullSchema)) {
    const other = anyOf.find((s) => !isNullSchema(s)) as Json;
    // Also for an object, whose keywords apply only to objects: a null passes them.
    const alone = Object.keys(other ?? {}).every((k) => k === "type" || (other.type === "object" && ["properties", "required", "additionalProperties"].includes(k)));
    if (typeof other?.type === "string" && alone && !Object.keys(other).some((k) => k !== "type" && k in out)) {
      delete out.anyOf;
      Object.assign(out, other, { type: [other.type, "null"] });
    }
  }
  return out;
}

const STRUCTURE = ["type", "properties", "required", "additionalProperties", "items", "anyOf"];

/**
 * A stand-in that names a strict object's fields and types and nothing else: shorter than the schema, and
 * still closed at every level, so a client that builds a strict schema from it sends only what is accepted.
 */
export function namesAndTypes(schema: z.ZodType): Json {
  const cut = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(cut);
    if (typeof node !== "object" || node === null) return node;
    const kept = Object.entries(node as Json).filter(([key]) => STRUCTURE.includes(key));
    return Object.fromEntries(kept.map(([key, value]) => [key, key === "properties" ? Object.fromEntries(Object.entries(value as Json).map(([name, s]) => [name, cut(s)])) : cut(value)]));
  };
  return cut(z.toJSONSchema(schema, { io: "input" })) as Json;
}

/** The published form of a tool's input or output JSON Schema. */
export function publishedSchema(schema: Json, io: "input" | "output"): Json {
  return compact(schema, io) as Json;
}
