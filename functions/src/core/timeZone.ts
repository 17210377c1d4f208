// IANA time zone names this runtime knows, and one formatter per zone (constructing an Intl.DateTimeFormat
// costs far more than using one). In core so the stream's schema (store/scanEvents.ts) can check a zone.

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's formatter of day, hour and weekday; throws RangeError for a zone this runtime does not know. */
export function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", weekday: "short" });
    formatters.set(timeZone, f);
  }
  return f;
}

export function isTimeZone(value: string): boolean {
  // The shape first: only a known name is ever cached, and nothing else reaches Intl.
  if (value.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(value)) return false;
  try {
    zoneFormatter(value);
    return true;
  } catch {
    return false;
  }
}
