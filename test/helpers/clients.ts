// Distinct clients, told apart the way production tells them apart: by the address they connect from.
// Each client connects from its own loopback address (127.a.b.c); the local front appends that address
// to X-Forwarded-For (presented as a public address, scripts/lib/front.ts), exactly as Google's front end
// appends the address it accepted a connection from. Tests never write X-Forwarded-For to pick a client.
import { randomInt } from "node:crypto";
import { Agent, fetch as undiciFetch } from "undici";
import { publicAddressOf } from "../../scripts/lib/front";
import { placeOfAddress } from "../../functions/src/scans/geo";

export interface TestClient {
  /** The loopback address this client connects from. */
  address: string;
  /** The public address the front presents it as (what the functions see as the client). */
  presentedAs: string;
  fetch: (url: string, init?: RequestInit) => Promise<Response>;
  /** City and state the service should record for this client's scans. */
  place(): Promise<{ country: string; city: string; state: string }>;
}

const taken = new Set<string>();

export function newClient(): TestClient {
  let address: string;
  do address = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  while (taken.has(address));
  taken.add(address);
  const dispatcher = new Agent({ localAddress: address });
  const presentedAs = publicAddressOf(address);
  return {
    address,
    presentedAs,
    fetch: (url, init) => undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>,
    place: () => placeOfAddress(presentedAs),
  };
}

/** The address the local front appends as the Hosting hop in this run (scripts/lib/stack.ts exports it). */
export function hostingHop(): string {
  const hop = process.env.FRONT_HOSTING_HOP;
  if (!hop) throw new Error("FRONT_HOSTING_HOP is not set: run the tests through `npm test`, which starts the front");
  return hop;
}
