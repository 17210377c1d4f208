// Address parsing and range membership on the request path: no bigints and no regular expressions for
// IPv4, so building Google's sets costs about a millisecond at cold start and a lookup well under one
// microsecond. IPv4 values are numbers; IPv6 values are four unsigned 32-bit words, compared in order.
// Set arithmetic (union, difference) lives in scripts/lib/addressRangeSet.ts, used offline.
import googleRanges from "./googleRanges.json";

export type Words = [number, number, number, number];

export type ParsedRange = { family: 4; first: number; last: number } | { family: 6; first: Words; last: Words };

/** A dotted IPv4 address as a number, or -1 (no leading zeros, as node:net's isIP). */
export function parseIpv4(text: string): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && octet === 0) return -1;
      octet = octet * 10 + (c - 48);
      if (octet > 255) return -1;
      digits++;
    } else return -1;
  }
  return dots === 3 && digits > 0 ? value * 256 + octet : -1;
}

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Groups of one side of "::"; a dotted IPv4 tail counts as two. Undefined when malformed. */
function groupsOf(part: string, ipv4Tail: boolean): number[] | undefined {
  if (part === "") return [];
  const items = part.split(":");
  const groups: number[] = [];
  for (let i = 0; i < items.length; i++) {
    if (ipv4Tail && i === items.length - 1 && items[i].includes(".")) {
      const v4 = parseIpv4(items[i]);
      if (v4 < 0) return undefined;
      groups.push(Math.floor(v4 / 65536), v4 % 65536);
    } else if (HEX_GROUP.test(items[i])) groups.push(parseInt(items[i], 16));
    else return undefined;
  }
  return groups;
}

/** An IPv6 address (zone allowed) as four 32-bit words, or undefined. */
export function parseIpv6(text: string): Words | undefined {
  const zone = text.indexOf("%");
  if (zone === text.length - 1) return undefined;
  const body = zone >= 0 ? text.slice(0, zone) : text;
  const gap = body.indexOf("::");
  if (gap >= 0 && body.indexOf("::", gap + 1) >= 0) return undefined;
  const head = groupsOf(gap >= 0 ? body.slice(0, gap) : body, gap < 0);
  const tail = gap >= 0 ? groupsOf(body.slice(gap + 2), true) : [];
  if (!head || !tail) return undefined;
  const explicit = head.length + tail.length;
  if (gap >= 0 ? explicit > 7 : explicit !== 8) return undefined;
  const g = [...head, ...Array<number>(8 - explicit).fill(0), ...tail];
  return [g[0] * 65536 + g[1], g[2] * 65536 + g[3], g[4] * 65536 + g[5], g[6] * 65536 + g[7]];
}

/** True for a plain IPv4 or IPv6 address (what a proxy appends), false for anything else. */
export function isAddress(text: string): boolean {
  return parseIpv4(text) >= 0 || (text.includes(":") && parseIpv6(text) !== undefined);
}

/** "a.b.c.d/n", "v6::/n" or a single address; host bits are cleared. Throws on anything else. */
export function parseRange(text: string): ParsedRange {
  const trimmed = text.trim();
  const slash = trimmed.indexOf("/");
  const address = slash >= 0 ? trimmed.slice(0, slash) : trimmed;
  const prefixText = slash >= 0 ? trimmed.slice(slash + 1) : undefined;
  const v4 = parseIpv4(address);
  const v6 = v4 < 0 ? parseIpv6(address) : undefined;
  const bits = v4 >= 0 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if ((v4 < 0 && !v6) || !(prefix >= 0 && prefix <= bits)) throw new Error(`"${trimmed}" is not an IP address or CIDR range`);
  if (v4 >= 0) {
    const size = 2 ** (32 - prefix);
    const first = v4 - (v4 % size);
    return { family: 4, first, last: first + size - 1 };
  }
  const first = [0, 0, 0, 0] as Words;
  const last = [0, 0, 0, 0] as Words;
  for (let i = 0; i < 4; i++) {
    const kept = Math.min(32, Math.max(0, prefix - 32 * i));
    const hostSize = 2 ** (32 - kept);
    first[i] = v6![i] - (v6![i] % hostSize);
    last[i] = first[i] + hostSize - 1;
  }
  return { family: 6, first, last };
}

function compareWords(a: ArrayLike<number>, b: ArrayLike<number>, at = 0): number {
  for (let i = 0; i < 4; i++) if (a[i] !== b[at + i]) return a[i] < b[at + i] ? -1 : 1;
  return 0;
}

/** A fixed set of ranges answering "is this address inside?" by binary search over merged intervals. */
export class AddressMatcher {
  private readonly v4First: Float64Array;
  private readonly v4Last: Float64Array;
  private readonly v6First: Float64Array; // four words per interval
  private readonly v6Last: Float64Array;

  /** Throws on a text that is not an address or CIDR range. */
  constructor(ranges: readonly string[]) {
    const v4: Array<[number, number]> = [];
    const v6: Array<[Words, Words]> = [];
    for (const text of ranges) {
      const range = parseRange(text);
      if (range.family === 4) v4.push([range.first, range.last]);
      else v6.push([range.first, range.last]);
    }
    // Overlapping intervals merge, so the ends are sorted too and a binary search finds the only candidate.
    v4.sort((a, b) => a[0] - b[0]);
    const merged4: Array<[number, number]> = [];
    for (const [first, last] of v4) {
      const top = merged4[merged4.length - 1];
      if (top && first <= top[1]) top[1] = Math.max(top[1], last);
      else merged4.push([first, last]);
    }
    v6.sort((a, b) => compareWords(a[0], b[0]));
    const merged6: Array<[Words, Words]> = [];
    for (const [first, last] of v6) {
      const top = merged6[merged6.length - 1];
      if (top && compareWords(first, top[1]) <= 0) {
        if (compareWords(last, top[1]) > 0) top[1] = last;
      } else merged6.push([first, last]);
    }
    this.v4First = Float64Array.from(merged4, (r) => r[0]);
    this.v4Last = Float64Array.from(merged4, (r) => r[1]);
    this.v6First = Float64Array.from(merged6.flatMap((r) => r[0]));
    this.v6Last = Float64Array.from(merged6.flatMap((r) => r[1]));
  }

  /** True when the address (plain IPv4 or IPv6) lies in the set; false for anything else. */
  has(address: string): boolean {
    const v4 = parseIpv4(address);
    if (v4 >= 0) return this.firstAtOrAfter4(v4) >= 0;
    const v6 = address.includes(":") ? parseIpv6(address) : undefined;
    return v6 !== undefined && this.firstAtOrAfter6(v6, v6) >= 0;
  }

  /** True when any address of the range is in the set. */
  overlaps(range: ParsedRange): boolean {
    return range.family === 4 ? this.firstAtOrAfter4(range.first, range.last) >= 0 : this.firstAtOrAfter6(range.first, range.last) >= 0;
  }

  /** Index of the interval that ends at or after `from` and starts at or before `to`, or -1. */
  private firstAtOrAfter4(from: number, to = from): number {
    let low = 0;
    let high = this.v4Last.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.v4Last[mid] < from) low = mid + 1;
      else high = mid;
    }
    return low < this.v4First.length && this.v4First[low] <= to ? low : -1;
  }

  private firstAtOrAfter6(from: Words, to: Words): number {
    const count = this.v6Last.length / 4;
    let low = 0;
    let high = count;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (compareWords(from, this.v6Last, mid * 4) > 0) low = mid + 1;
      else high = mid;
    }
    return low < count && compareWords(to, this.v6First, low * 4) >= 0 ? low : -1;
  }
}

// Google's published ranges (googleRanges.json, written by scripts/refresh-google-ranges.ts), each
// built on first use: the client-address walk needs two, config validation the third.
const built: Partial<Record<"googleNotCloud" | "googleAll" | "cloud", AddressMatcher>> = {};

/** Google-owned ranges that no Google Cloud customer can hold (goog.json minus cloud.json). */
export const googleNotCloud = () => (built.googleNotCloud ??= new AddressMatcher(googleRanges.googleNotCloud));
/** Every Google-owned range, customer space included (goog.json plus cloud.json). */
export const googleAll = () => (built.googleAll ??= new AddressMatcher(googleRanges.googleAll));
/** Ranges Google Cloud customers can hold (cloud.json): never a trusted hop. */
export const googleCloudCustomerSpace = () => (built.cloud ??= new AddressMatcher(googleRanges.cloud));
/** The cloud.json ranges that overlap a range, for error messages. */
export const customerRangesOverlapping = (range: ParsedRange) =>
  googleRanges.cloud.filter((cidr) => new AddressMatcher([cidr]).overlaps(range));
