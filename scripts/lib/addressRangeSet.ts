// Set arithmetic on IP address ranges, for offline use (scripts/refresh-google-ranges.ts and tests):
// union, difference and intersection of sorted, merged intervals, and the fewest CIDR blocks that cover
// a set. Bigints keep IPv6 exact. Parsing is the request path's (functions/src/core/addressRanges.ts).
import { parseIpv4, parseIpv6, parseRange } from "../../functions/src/core/addressRanges";

const BITS = { 4: 32, 6: 128 } as const;

/** Sorted, merged, non-adjacent intervals of one family. */
type Intervals = Array<[bigint, bigint]>;

const wordsToBigint = (words: readonly number[]) => words.reduce((value, word) => (value << 32n) | BigInt(word), 0n);

/** The family and numeric value of an address, or undefined for anything that is not one. */
export function parseAddress(text: string): { family: 4 | 6; value: bigint } | undefined {
  const v4 = parseIpv4(text);
  if (v4 >= 0) return { family: 4, value: BigInt(v4) };
  const v6 = parseIpv6(text);
  return v6 ? { family: 6, value: wordsToBigint(v6) } : undefined;
}

function formatAddress(family: 4 | 6, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join(".");
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952: the longest run of two or more zero groups (the first of equals) becomes "::".
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(":");
  return `${hex.slice(0, best.at).join(":")}::${hex.slice(best.at + best.length).join(":")}`;
}

function normalise(intervals: Intervals): Intervals {
  const sorted = [...intervals].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const merged: Intervals = [];
  for (const [first, last] of sorted) {
    const previous = merged[merged.length - 1];
    if (previous && first <= previous[1] + 1n) previous[1] = last > previous[1] ? last : previous[1];
    else merged.push([first, last]);
  }
  return merged;
}

function difference(a: Intervals, b: Intervals): Intervals {
  const out: Intervals = [];
  let j = 0;
  for (const [first, last] of a) {
    let start = first;
    while (j < b.length && b[j][1] < start) j++;
    for (let k = j; start <= last && k < b.length && b[k][0] <= last; k++) {
      if (b[k][0] > start) out.push([start, b[k][0] - 1n]);
      start = b[k][1] + 1n;
    }
    if (start <= last) out.push([start, last]);
  }
  return out;
}

function intersection(a: Intervals, b: Intervals): Intervals {
  const out: Intervals = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const first = a[i][0] > b[j][0] ? a[i][0] : b[j][0];
    const last = a[i][1] < b[j][1] ? a[i][1] : b[j][1];
    if (first <= last) out.push([first, last]);
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return out;
}

/** The fewest CIDR blocks that cover exactly [first, last]. */
function cidrsOf(family: 4 | 6, first: bigint, last: bigint): string[] {
  const bits = BigInt(BITS[family]);
  const out: string[] = [];
  let start = first;
  while (start <= last) {
    let size = 0n; // log2 of the block size
    while (size < bits && start % (1n << (size + 1n)) === 0n && start + (1n << (size + 1n)) - 1n <= last) size++;
    out.push(`${formatAddress(family, start)}/${bits - size}`);
    start += 1n << size;
  }
  return out;
}

export class AddressRangeSet {
  private constructor(
    private readonly v4: Intervals,
    private readonly v6: Intervals,
  ) {}

  /** A set from range texts ("35.191.0.0/16", "2600:1900::/28", "8.8.8.8"); throws on a bad text. */
  static of(ranges: Iterable<string>): AddressRangeSet {
    const byFamily: Record<4 | 6, Intervals> = { 4: [], 6: [] };
    for (const text of ranges) {
      const range = parseRange(text);
      if (range.family === 4) byFamily[4].push([BigInt(range.first), BigInt(range.last)]);
      else byFamily[6].push([wordsToBigint(range.first), wordsToBigint(range.last)]);
    }
    return new AddressRangeSet(normalise(byFamily[4]), normalise(byFamily[6]));
  }

  has(address: string): boolean {
    const parsed = parseAddress(address);
    return !!parsed && (parsed.family === 4 ? this.v4 : this.v6).some(([first, last]) => first <= parsed.value && parsed.value <= last);
  }

  union(other: AddressRangeSet): AddressRangeSet {
    return new AddressRangeSet(normalise([...this.v4, ...other.v4]), normalise([...this.v6, ...other.v6]));
  }

  minus(other: AddressRangeSet): AddressRangeSet {
    return new AddressRangeSet(difference(this.v4, other.v4), difference(this.v6, other.v6));
  }

  intersect(other: AddressRangeSet): AddressRangeSet {
    return new AddressRangeSet(intersection(this.v4, other.v4), intersection(this.v6, other.v6));
  }

  get isEmpty(): boolean {
    return this.v4.length === 0 && this.v6.length === 0;
  }

  /** The set as the fewest CIDR blocks, IPv4 first, each family in address order. */
  toCidrs(): string[] {
    return [...this.v4.flatMap(([first, last]) => cidrsOf(4, first, last)), ...this.v6.flatMap(([first, last]) => cidrsOf(6, first, last))];
  }
}
