// Calendar arithmetic in a workspace's time zone (an IANA name, default UTC): which local day, hour and
// weekday a scan falls on, and which local days a window of N days covers (one formatter per zone: core/timeZone.ts).
import { z } from "zod";
import { isTimeZone, zoneFormatter as formatter } from "../core/timeZone";

export { DEFAULT_TIME_ZONE } from "../core/constants";
export { isTimeZone };

/** An IANA time zone name this runtime knows (e.g. America/Los_Angeles, Europe/Berlin, UTC). */
export const timeZoneSchema = z
  .string()
  .max(64)
  .refine(isTimeZone, { message: "must be an IANA time zone name such as America/Los_Angeles or UTC" });

const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

interface LocalMoment {
  /** Local calendar day, YYYY-MM-DD. */
  day: string;
  /** Local hour, 0 to 23. */
  hour: number;
  /** ISO weekday index: 0 = Monday ... 6 = Sunday. */
  weekday: number;
}

export function localMoment(at: Date, timeZone: string): LocalMoment {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(at)) parts[p.type] = p.value;
  return { day: `${parts.year}-${parts.month}-${parts.day}`, hour: Number(parts.hour) % 24, weekday: WEEKDAYS.indexOf(parts.weekday) };
}

/** ISO weekday (0 = Monday) of a YYYY-MM-DD calendar day. */
export function weekdayOf(day: string): number {
  return (new Date(`${day}T12:00:00Z`).getUTCDay() + 6) % 7;
}

/** The `days` local calendar days ending with today in `timeZone`, oldest first. */
export function localWindow(days: number, timeZone: string, now = new Date()): string[] {
  const today = localMoment(now, timeZone).day;
  const base = Date.parse(`${today}T12:00:00Z`);
  return Array.from({ length: days }, (_, i) => new Date(base - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}
