// Each workspace's time zone, remembered per instance for a minute: a scan's local day and hour need it,
// and a busy code must not cost a read per scan. A change of zone applies within the minute.
import { countOps } from "../store/opCounter";
import { readWorkspaceTimeZone } from "../store/workspaces";

const TIME_ZONE_TTL_MS = 60_000;
const TIME_ZONES_MAX = 10_000;
const timeZones = new Map<string, { value: Promise<string>; at: number }>();

/** The workspace's time zone as of at most a minute ago; a failed read keeps the last known zone (or UTC). */
export function workspaceTimeZone(merchantId: string, now: number): Promise<string> {
  const cached = timeZones.get(merchantId);
  if (cached && now - cached.at < TIME_ZONE_TTL_MS) return cached.value;
  const value = readWorkspaceTimeZone(merchantId).then(
    (tz) => (countOps({ reads: 1 }), tz),
    () => cached?.value ?? "UTC", // keep counting in the last known zone if the read fails
  );
  if (timeZones.size > TIME_ZONES_MAX) timeZones.clear();
  timeZones.set(merchantId, { value, at: now });
  return value;
}
