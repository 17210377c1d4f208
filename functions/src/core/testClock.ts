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
