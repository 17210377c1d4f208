// The functions' log as the stack writes it (scripts/lib/stack.ts LOG_FILE), for tests asserting that an
// event was logged: polled until a matching line appears, since log lines land a moment after the answer.
import { readFileSync } from "node:fs";
import path from "node:path";

/** The log of the stack this test process was given (scripts/test.ts sets TEST_LOG_FILE; shard 0's by default). */
export const LOG = () => process.env.TEST_LOG_FILE || path.join(process.cwd(), ".emulator-data", "emulators.log");

/** The log lines containing every one of `parts`, once at least one is there (or [] after `timeoutMs`). */
export async function logLinesWith(parts: readonly string[], timeoutMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = readFileSync(LOG(), "utf8")
      .split("\n")
      .filter((line) => parts.every((part) => line.includes(part)));
    if (lines.length || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
