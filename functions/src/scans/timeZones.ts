// Each workspace's time zone, remembered per instance for a minute: a scan's local day and hour need it,
// and a busy code must not cost a read per scan. A change of zone applies within the minute.
import { withTimeout } from "../core/firebase";
import { countOps } from "../store/opCounter";
import { readWorkspaceTimeZone } from "../store/workspaces";

const TIME_ZONE_TTL_MS = 60_000;
/**
 * A zone read not answered by then is taken as failed: the SDK's read takes no timeout of its own (core/
 * firebase.ts), and a capped code's scan waits for its zone before its answer (redirect/app.ts).
 */
export const ZONE_READ_DEADLINE_MS = 3_000;
const TIME_ZONES_MAX = 10_000;
const timeZones = new Map<string, { value: Promise<string>; at: number; settled?: string }>();

/** The workspace's time zone as of at most a minute ago; a failed or late read keeps the last known zone (or UTC). */
export function workspaceTimeZone(merchantId: string, now: number): Promise<string> {
  const cached = timeZones.get(merchantId);
  if (cached && now - cached.at < TIME_ZONE_TTL_MS) return cached.value;
  const value: Promise<string> = withTimeout(readWorkspaceTimeZone(merchantId), ZONE_READ_DEADLINE_MS, "time zone read").then(
    (tz) => (countOps({ reads: 1 }), tz),
    () => {
      if (cached) return cached.value; // keep counting in the last known zone while reads fail
      // Nothing known: this scan counts in UTC, and the next one reads again instead of keeping UTC for a
      // minute (a visitor's scans would otherwise fall on two different local days).
      if (timeZones.get(merchantId)?.value === value) timeZones.delete(merchantId);
      return "UTC";
    },
  );
  if (timeZones.size > TIME_ZONES_MAX) timeZones.clear();
  const entry: { value: Promise<string>; at: number; settled?: string } = { value, at: now };
  void value.then((tz) => (entry.settled = tz));
  timeZones.set(merchantId, entry);
  return value;
}

/**
 * The workspace's zone if this instance holds one read within the minute, without waiting (a scan's
 * arrival is published at once: scans/arrival.ts); else undefined, and a read starts for the next scan.
 */
export function knownTimeZone(merchantId: string, now: number): string | undefined {
  const cached = timeZones.get(merchantId);
  if (cached && now - cached.at < TIME_ZONE_TTL_MS) return cached.settled;
  void workspaceTimeZone(merchantId, now);
  return undefined;
}
