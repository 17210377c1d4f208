// `npm run refresh:google-ranges`: rewrites functions/src/core/googleRanges.json, the address ranges the
// client-address walk trusts as Google's own proxies: Google's published goog.json (every range Google
// owns) minus cloud.json (ranges Google Cloud customers can hold, whose holders could forge hops).
//   npm run refresh:google-ranges                      download both lists from www.gstatic.com
//   npm run refresh:google-ranges -- --goog <file|url> [--goog ...] --cloud <file|url> [--cloud ...] \
//       --via "<where the copies came from>"
// A source may be the published JSON or a plain list (one CIDR a line, as mirrors such as
// github.com/NavyStack/ipranges keep them). Review the diff before committing: a range that leaves
// googleNotCloud stops being trusted as a hop.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { AddressRangeSet } from "./lib/addressRangeSet";

const PUBLISHED = { goog: "https://www.gstatic.com/ipranges/goog.json", cloud: "https://www.gstatic.com/ipranges/cloud.json" };
export const GOOGLE_RANGES_FILE = path.resolve(__dirname, "..", "functions", "src", "core", "googleRanges.json");
// Today's lists hold about 100 and 1,000 prefixes: far fewer means a failed or truncated download.
const MINIMUM_PREFIXES = { goog: 50, cloud: 300 };

interface PublishedList {
  prefixes: string[];
  creationTime?: string;
}

function argsOf(name: string): string[] {
  const values: string[] = [];
  process.argv.forEach((arg, i) => {
    if (arg === `--${name}` && process.argv[i + 1]) values.push(process.argv[i + 1]);
  });
  return values;
}

async function read(source: string): Promise<string> {
  if (!/^https?:\/\//.test(source)) return readFileSync(source, "utf8");
  const res = await fetch(source, { signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`${source} answered ${res.status}`);
  return res.text();
}

/** Prefixes of a published JSON list ({prefixes: [{ipv4Prefix | ipv6Prefix}]}) or of a plain list. */
export function parseList(text: string): PublishedList {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    const json = JSON.parse(trimmed) as { creationTime?: string; prefixes?: Array<{ ipv4Prefix?: string; ipv6Prefix?: string }> };
    const prefixes = (json.prefixes ?? []).map((p) => p.ipv4Prefix ?? p.ipv6Prefix).filter((p): p is string => Boolean(p));
    return { prefixes, creationTime: json.creationTime };
  }
  return { prefixes: trimmed.split(/\r?\n/).map((line) => line.replace(/#.*/, "").trim()).filter(Boolean) };
}

async function load(kind: "goog" | "cloud"): Promise<{ sources: string[]; list: PublishedList }> {
  const sources = argsOf(kind).length ? argsOf(kind) : [PUBLISHED[kind]];
  const lists = await Promise.all(sources.map(async (source) => parseList(await read(source))));
  const list = { prefixes: lists.flatMap((l) => l.prefixes), creationTime: lists.find((l) => l.creationTime)?.creationTime };
  if (list.prefixes.length < MINIMUM_PREFIXES[kind]) {
    throw new Error(`${kind}: only ${list.prefixes.length} prefixes from ${sources.join(", ")} (expected at least ${MINIMUM_PREFIXES[kind]})`);
  }
  return { sources, list };
}

/** The data file's content: sets as the fewest CIDR blocks, plus where and when they came from. */
export function googleRangesFile<P extends object>(goog: string[], cloud: string[], provenance: P) {
  const googSet = AddressRangeSet.of(goog);
  const cloudSet = AddressRangeSet.of(cloud);
  return {
    about:
      "Google's published address ranges. googleNotCloud = goog.json minus cloud.json: trusted as proxy hops when reading X-Forwarded-For. " +
      "cloud = cloud.json (customer-assignable, never trusted). googleAll = goog.json plus cloud.json: a client resolved there is a proxy or a server, not a visitor. " +
      "Regenerate with `npm run refresh:google-ranges` (docs/decisions.md, \"The client address\").",
    ...provenance,
    googleNotCloud: googSet.minus(cloudSet).toCidrs(),
    cloud: cloudSet.toCidrs(),
    googleAll: googSet.union(cloudSet).toCidrs(),
  };
}

async function main(): Promise<void> {
  const [goog, cloud] = await Promise.all([load("goog"), load("cloud")]);
  const via = argsOf("via")[0];
  const local = [...goog.sources, ...cloud.sources].some((source) => !/^https?:\/\//.test(source));
  if (local && !via) throw new Error("give --via \"<where the copies came from>\" when reading files");
  const file = googleRangesFile(goog.list.prefixes, cloud.list.prefixes, {
    sources: PUBLISHED,
    retrievedFrom: via ?? { goog: goog.sources, cloud: cloud.sources },
    retrievedAt: argsOf("date")[0] ?? new Date().toISOString().slice(0, 10),
    publishedAt: { goog: goog.list.creationTime ?? null, cloud: cloud.list.creationTime ?? null },
  });
  writeFileSync(GOOGLE_RANGES_FILE, `${JSON.stringify(file, null, 2)}\n`);
  console.log(
    `wrote ${path.relative(process.cwd(), GOOGLE_RANGES_FILE)}: ${file.googleNotCloud.length} trusted ranges ` +
      `(from ${goog.list.prefixes.length} goog and ${cloud.list.prefixes.length} cloud prefixes)`,
  );
}

if (require.main === module) {
  main().catch((error) => {
    console.error(`refresh-google-ranges: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  });
}
