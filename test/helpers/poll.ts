// The one way tests wait: ask again until the answer is what the test waits for, or fail after a time
// limit with the last answer. Never a fixed sleep: a settled state is something the test can observe.
export interface PollOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Named in the error when the time runs out. */
  what?: string;
}

/** Calls `read` until `done(value)` holds and returns that value; throws with the last value after `timeoutMs`. */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean = Boolean, { timeoutMs = 30_000, intervalMs = 200, what = "condition" }: PollOptions = {}): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`${what} not reached within ${timeoutMs} ms; last: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
