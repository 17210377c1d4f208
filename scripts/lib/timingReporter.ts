// A mocha reporter: mocha's own `spec` output, plus each test file's time written as JSON to
// TEST_TIMES_FILE, so scripts/test.ts can print a tier's slowest files. A file's time is the wall clock
// from its first event to its last, or the sum of its tests' durations where that is larger (in --parallel
// mode a worker's events reach the reporter all at once when its file ends).
import { writeFileSync } from "node:fs";
import Mocha from "mocha";

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_END, EVENT_RUN_END } = Mocha.Runner.constants;

class TimingReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options: Mocha.MochaOptions) {
    super(runner, options);
    const started = new Map<string, number>();
    const wall = new Map<string, number>();
    const summed = new Map<string, number>();
    runner.on(EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (suite.file && !started.has(suite.file)) started.set(suite.file, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite: Mocha.Suite) => {
      if (suite.file && started.has(suite.file)) wall.set(suite.file, Date.now() - started.get(suite.file)!);
    });
    runner.on(EVENT_TEST_END, (test: Mocha.Test) => {
      if (test.file) summed.set(test.file, (summed.get(test.file) ?? 0) + (test.duration ?? 0));
    });
    runner.once(EVENT_RUN_END, () => {
      const out = process.env.TEST_TIMES_FILE;
      if (!out) return;
      const files = new Set([...wall.keys(), ...summed.keys()]);
      const times = Object.fromEntries([...files].map((f) => [f, Math.max(wall.get(f) ?? 0, summed.get(f) ?? 0)]));
      writeFileSync(out, JSON.stringify(times));
    });
  }
}

export = TimingReporter;
