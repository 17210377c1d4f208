// Which link a resolution redirects to, and the linkset it serves (GS1-Conformant Resolver 1.2; the
// checklist with section numbers: docs/gs1-resolver.md). Pure: the resolver passes the item of each level
// it found, most specific first.
import type { StoredGs1Item, StoredGs1Link } from "../store/gs1Items";
import { primaryKeyDef } from "./keys";
import { curieOf, relationOf } from "./linkTypes";

export interface MatchRequest {
  /** The vocabulary term of the requested link type (`pip`), or undefined when none was asked for. */
  linkType?: string;
  /** The Accept-Language header, as sent. */
  acceptLanguage?: string;
  /** The Accept header, as sent. */
  accept?: string;
  /** The `context` query parameter, as sent. */
  context?: string;
}

export type MatchOutcome =
  | { kind: "redirect"; link: StoredGs1Link; item: StoredGs1Item }
  | { kind: "noSuchLinkType" }
  | { kind: "noLinks" };

interface Weighted {
  tag: string;
  q: number;
}

/** Longer Accept and Accept-Language headers are cut here (no browser sends more), as the redirect cuts Accept-Language. */
export const WEIGHTED_HEADER_MAX = 512;
/** Ranges of such a header considered: matching costs ranges x links x languages, so both are bounded. */
export const WEIGHTED_RANGES_MAX = 20;

/** An Accept-Language or Accept header as (value, q) pairs, best first; q=0 entries dropped; bounded as above. */
export function weightedList(header: string | undefined): Weighted[] {
  if (!header) return [];
  return header
    .slice(0, WEIGHTED_HEADER_MAX)
    .split(",", WEIGHTED_RANGES_MAX)
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(";");
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const q = qParam ? Number(qParam.slice(2)) : 1;
      return { tag: tag.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((w) => w.tag && w.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map(({ tag, q }) => ({ tag, q }));
}

/** How well a link's languages meet the request: higher is better, 0 when none matches. */
function languageScore(link: StoredGs1Link, wanted: Weighted[]): number {
  if (!wanted.length || !link.hreflang?.length) return 0;
  const langs = link.hreflang.map((l) => l.toLowerCase());
  let best = 0;
  wanted.forEach((w, rank) => {
    const base = 1000 - rank * 10;
    for (const lang of langs) {
      if (lang === w.tag) best = Math.max(best, base + 2);
      else if (lang.split("-")[0] === w.tag.split("-")[0] && w.tag !== "*") best = Math.max(best, base + 1);
    }
  });
  return best;
}

function mediaScore(link: StoredGs1Link, wanted: Weighted[]): number {
  if (!link.type) return 0;
  const type = link.type.toLowerCase();
  const hit = wanted.findIndex((w) => w.tag === type || (w.tag.endsWith("/*") && w.tag !== "*/*" && type.startsWith(w.tag.slice(0, -1))));
  return hit < 0 ? 0 : 100 - hit;
}

function contextScore(link: StoredGs1Link, context: string | undefined): number {
  if (!context || !link.context?.length) return 0;
  return link.context.some((c) => c.toLowerCase() === context.toLowerCase()) ? 1 : 0;
}

/**
 * The best of `candidates` for the request: by language first, then media type, then context; a tie goes to
 * the default link if it is among the best, else to the first in the item's order.
 */
function best(candidates: StoredGs1Link[], request: MatchRequest): StoredGs1Link {
  const languages = weightedList(request.acceptLanguage);
  const media = weightedList(request.accept);
  const score = (l: StoredGs1Link) => [languageScore(l, languages), mediaScore(l, media), contextScore(l, request.context)];
  let top: StoredGs1Link[] = [];
  let topScore: number[] | undefined;
  for (const link of candidates) {
    const s = score(link);
    const cmp = topScore ? s.findIndex((v, i) => v !== topScore![i]) : -1;
    if (!topScore || (cmp >= 0 && s[cmp] > topScore[cmp])) {
      top = [link];
      topScore = s;
    } else if (cmp < 0) top.push(link);
  }
  return top.find((l) => l.default) ?? top[0];
}

/**
 * Picks where to redirect. `levels`: the items found for the request, most specific level first (absent
 * levels left out). With a link type: its links at the most specific level that has any, else
 * noSuchLinkType (404). Without one: the default link of the most specific level, unless a link of the
 * same type at that level matches the request's language, media type or context better.
 */
export function chooseLink(levels: readonly StoredGs1Item[], request: MatchRequest): MatchOutcome {
  if (request.linkType) {
    const wanted = curieOf(request.linkType);
    for (const item of levels) {
      const ofType = item.links.filter((l) => l.linkType === wanted);
      if (ofType.length) return { kind: "redirect", link: best(ofType, request), item };
    }
    return { kind: "noSuchLinkType" };
  }
  for (const item of levels) {
    const fallback = item.links.find((l) => l.default);
    if (!fallback) continue;
    const sameType = item.links.filter((l) => l.linkType === fallback.linkType);
    return { kind: "redirect", link: best(sameType, request), item };
  }
  return { kind: "noLinks" };
}

/** One link object of a linkset (RFC 9264 section 4.2.4, with GS1's `context`). */
function targetOf(link: StoredGs1Link): Record<string, unknown> {
  return {
    href: link.href,
    title: link.title,
    ...(link.type ? { type: link.type } : {}),
    ...(link.hreflang?.length ? { hreflang: link.hreflang } : {}),
    ...(link.context?.length ? { context: link.context } : {}),
  };
}

const QUALIFIER_WORDS: Readonly<Record<string, string>> = { "22": "CPV", "10": "lot", "21": "serial" };

/**
 * A level's itemDescription, which GS1's linkset schema requires: its own description; else the nearest
 * less specific level's description (else the key, "GTIN 09506000134352") followed by the qualifiers that
 * level lacks ("Risotto rice, lot LOT42").
 */
function itemDescriptionOf(levels: readonly StoredGs1Item[], index: number): string {
  const item = levels[index];
  if (item.description) return item.description;
  const described = levels.slice(index + 1).find((l) => l.description);
  const base = described?.description ?? `${primaryKeyDef(item.ai)?.title ?? `AI ${item.ai}`} ${item.value}`;
  const extra = item.qualifiers.slice(described?.qualifiers.length ?? 0).map((q) => `${QUALIFIER_WORDS[q.ai] ?? `AI ${q.ai}`} ${q.value}`);
  return [base, ...extra].join(", ");
}

/**
 * The linkset (RFC 9264, application/linkset+json; valid against GS1's linkset JSON schema): one context
 * object per level, most specific first, anchored at that level's uncompressed URI, with its
 * itemDescription, its links grouped by relation type (the vocabulary's URI), and the default link under
 * gs1:defaultLink with its target and title only.
 */
export function linksetOf(levels: readonly StoredGs1Item[], uriOf: (item: StoredGs1Item) => string): { linkset: Array<Record<string, unknown>> } {
  return {
    linkset: levels.map((item, index) => {
      const context: Record<string, unknown> = { anchor: uriOf(item), itemDescription: itemDescriptionOf(levels, index) };
      for (const link of item.links) {
        const relation = relationOf(link.linkType.replace(/^gs1:/, ""));
        const targets = (context[relation] as unknown[] | undefined) ?? [];
        targets.push(targetOf(link));
        context[relation] = targets;
      }
      const fallback = item.links.find((l) => l.default);
      if (fallback) context[relationOf("defaultLink")] = [{ href: fallback.href, title: fallback.title }];
      return context;
    }),
  };
}
