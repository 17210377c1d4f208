// The test clock: on the local emulator stack only, a request may name the instant it is served at
// (`X-Test-Clock: <epoch ms>`), so a test of a per-minute or per-window limit through HTTP passes a time
// instead of sleeping until a window starts. It is honoured only where testClockAllowed() holds: the
// emulators are in use, the project is a `demo-` one (which cannot reach a real project's data), and
// nothing says the code is deployed (K_SERVICE without FUNCTIONS_EMULATOR). Anywhere else the header is
// ignored and the wall clock is used. docs/decisions.md, "The test clock".
import { LOCAL_PROJECT_ID } from "./constants";

export const TEST_CLOCK_HEADER = "x-test-clock";

type Env = Record<string, string | undefined>;

/** Whether this process may honour X-Test-Clock: decided once, from the environment (getConfig().honoursTestClock). */
export function testClockAllowed(env: Env = process.env): boolean {
  const emulated = env.FUNCTIONS_EMULATOR === "true" || Boolean(env.FIRESTORE_EMULATOR_HOST);
  const project = env.GCLOUD_PROJECT || env.GCP_PROJECT || LOCAL_PROJECT_ID;
  const deployed = Boolean(env.K_SERVICE) && env.FUNCTIONS_EMULATOR !== "true";
  return emulated && project.startsWith("demo-") && !deployed;
}

/**
 * The time a request is served at, in epoch ms: the wall clock, or the header's instant when `honoured`
 * (an unreadable header is ignored, never an error).
 */
export function requestTime(headers: Record<string, string | string[] | undefined>, honoured: boolean, wallClock = Date.now()): number {
  if (!honoured) return wallClock;
  const raw = headers[TEST_CLOCK_HEADER];
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isSafeInteger(value) && value > 0 ? value : wallClock;
}

/**
 * `X-Test-Scan-Counted: 1` asks, under the same rule as the test clock, for X-Scan-Counted on a capped
 * code's answer, which public answers never carry (redirect/app.ts countedFor): a test reads how a scan
 * counted; a stranger never learns whether it spent an allowance.
 */
export const TEST_SCAN_COUNTED_HEADER = "x-test-scan-counted";

export const TEST_DNS_HEADER = "x-test-dns";

/**
 * The DNS server a request names for its domain check (`X-Test-Dns: 127.0.0.1:<port>`), under the same
 * rule as the test clock, so a service test's loopback DNS server answers the check the functions run.
 * Only a loopback address is taken: the header can never send a query off the machine.
 */
export function requestDnsServers(headers: Record<string, string | string[] | undefined>, honoured: boolean): string[] | undefined {
  const server = loopbackHostPort(headers, TEST_DNS_HEADER, honoured);
  return server ? [server] : undefined;
}

export const TEST_SAFE_BROWSING_HEADER = "x-test-safe-browsing";

/**
 * The Safe Browsing server a request names for its destination check (`X-Test-Safe-Browsing:
 * 127.0.0.1:<port>`), under the same rule: a service test's loopback stand-in answers the lookup the
 * functions make behind the front (failing, listing or clearing a URL), never Google's API.
 */
export function requestSafeBrowsingServer(headers: Record<string, string | string[] | undefined>, honoured: boolean): string | undefined {
  return loopbackHostPort(headers, TEST_SAFE_BROWSING_HEADER, honoured);
}

/** Whether `value` is `127.x.y.z:<port>` with a port in 1-65535: the only stand-in address a test may name. */
export function isLoopbackHostPort(value: string): boolean {
  const match = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}:(\d{1,5})$/.exec(value);
  return !!match && Number(match[1]) > 0 && Number(match[1]) < 65536;
}

/** A header's `127.x.y.z:<port>` when honoured; anything else (another address, a name, no port) is ignored. */
function loopbackHostPort(headers: Record<string, string | string[] | undefined>, name: string, honoured: boolean): string | undefined {
  if (!honoured) return undefined;
  const raw = headers[name];
  const value = String(Array.isArray(raw) ? raw[0] : (raw ?? ""));
  return isLoopbackHostPort(value) ? value : undefined;
}
