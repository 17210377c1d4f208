// Some records compare times in whole seconds (Firebase Auth's tokensValidAfterTime, an ID token's
// auth_time): a test that needs "later than that" waits for the clock's next second, not a fixed sleep.
import { eventually } from "./poll";

/** Resolves once the wall clock is in a later whole second than `sinceMs` (at most one second's wait). */
export async function nextWholeSecond(sinceMs = Date.now()): Promise<void> {
  const target = (Math.floor(sinceMs / 1000) + 1) * 1000;
  await eventually(() => Date.now(), (now) => now >= target, { intervalMs: 10, timeoutMs: 2_000, what: "the next whole second" });
}
