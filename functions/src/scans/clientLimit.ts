// The per-client scan limit (docs/scan-stream.md, "Past the per-client limit"): how many scans of /qr/ one
// client (an IPv4 address, or an IPv6 address's /64) has recorded on this instance in the current clock
// minute. Past SCANS_PER_CLIENT_MINUTE a scan is still answered (never refused: a crowd behind one address
// still gets where it scans to) but not recorded, except the first one past it, which is recorded as a
// machine's scan with the reason `limited`: the marker that says the client was limited that minute. So a
// flood from one client costs at most SCANS_PER_CLIENT_MINUTE + 1 published scans a minute per instance.
// Held in memory only (no read or write per scan), forgetting the client used longest ago past its bound.
import ipaddr from "ipaddr.js";
import { LruMap } from "../core/lru";

/** Scans one client may have recorded per clock minute on one instance. */
export const SCANS_PER_CLIENT_MINUTE = 120;
/** Clients an instance remembers (a few dozen bytes each: about 4 MB at most). */
export const LIMITED_CLIENTS_MAX = 50_000;
/** The reason a limited client's marker scan is counted under (a machine's, never a person's). */
export const LIMITED_REASON = "limited";

/** What to do with a scan: record it, record it as the client's `limited` marker, or only answer it. */
export type ScanAdmission = "record" | "marker" | "answer-only";

/**
 * The client a scan is counted against: an IPv4 address (an IPv4-mapped IPv6 one as its IPv4), or the /64 of
 * an IPv6 address (one host can hold a whole /64). Parsed by ipaddr.js, so every spelling of one address
 * (zero runs, leading zeros, case) is one client. Anything unreadable is one client of its own.
 */
export function scanClientOf(address: string): string {
  if (!ipaddr.isValid(address)) return "unreadable";
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(":")}::/64`;
}

interface ClientMinute {
  minute: number;
  scans: number;
}

/** A per-instance limiter; `scanLimit` is the redirect's. */
export class ScanLimiter {
  private readonly clients: LruMap<string, ClientMinute>;
  constructor(
    readonly perMinute = SCANS_PER_CLIENT_MINUTE,
    maxClients = LIMITED_CLIENTS_MAX,
  ) {
    this.clients = new LruMap(maxClients);
  }

  /** Counts one scan from `address` at `now` (epoch ms) and says what to do with it. */
  admit(address: string, now: number): ScanAdmission {
    const client = scanClientOf(address);
    const minute = Math.floor(now / 60_000);
    let state = this.clients.get(client);
    if (!state || state.minute !== minute) {
      state = { minute, scans: 0 };
      this.clients.set(client, state);
    }
    state.scans++;
    if (state.scans <= this.perMinute) return "record";
    return state.scans === this.perMinute + 1 ? "marker" : "answer-only";
  }

  get size(): number {
    return this.clients.size;
  }
}

export const scanLimit = new ScanLimiter();
