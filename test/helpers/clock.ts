// Some records compare times in whole seconds (Firebase Auth's tokensValidAfterTime, an ID token's
// auth_time): a test that needs "later than that" waits for the clock's next second, not a fixed sleep.
import { eventually } from "./poll";

/** Resolves once the wall clock is in a later whole second than `sinceMs` (at most one second's wait). */
export async function nextWholeSecond(sinceMs = Date.now()): Promise<void> {
  const target = (Math.floor(sinceMs / 1000) + 1) * 1000;
  await eventually(() => Date.now(), (now) => now >= target, { intervalMs: 10, timeoutMs: 2_000, what: "the next whole second" });
}

/**
 * The instant just after the start of the next `windowMs` window: a test that serves all its requests at
 * it (servedAt, or a `now`/`at` passed in process) has them counted in one fresh window, however long it
 * takes, instead of sleeping until a window starts.
 */
export function nextWindowStart(windowMs: number, now = Date.now()): number {
  return (Math.floor(now / windowMs) + 1) * windowMs + 1;
}

/** The instant just after the start of the window that holds `now` (in the past, on the same UTC day for windows dividing a day). */
export function thisWindowStart(windowMs: number, now = Date.now()): number {
  return Math.floor(now / windowMs) * windowMs + 1;
}

/** Headers that have the local stack serve a request at `at` (X-Test-Clock, functions/src/core/testClock.ts; ignored when deployed). */
export const servedAt = (at: number): Record<string, string> => ({ "X-Test-Clock": String(at) });
