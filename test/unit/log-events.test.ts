// Every log line is a named event: only core/log.ts writes to the logger, and each of its calls carries an
// `event` name to filter on in Cloud Logging (docs/decisions.md, "Security log events").
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const SRC = path.resolve(__dirname, "..", "..", "functions", "src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

describe("log events", () => {
  it("only core/log.ts writes logs, and each of its logger calls names its event", () => {
    const writers = sources(SRC).filter((f) => !f.endsWith(path.join("core", "log.ts")) && /\b(logger\.(info|warn|error|debug|log|write)|console\.(log|info|warn|error|debug))\(/.test(readFileSync(f, "utf8")));
    assert.deepEqual(writers.map((f) => path.relative(SRC, f)), [], "log through core/log.ts");
    const log = readFileSync(path.join(SRC, "core", "log.ts"), "utf8");
    // Each call up to the end of its statement.
    const calls = [...log.matchAll(/logger\.(info|warn|error|debug|log|write)\(([\s\S]*?)\);\n/g)];
    assert.ok(calls.length >= 30, `${calls.length} logger calls`);
    for (const [call] of calls) assert.match(call, /\bevent\b/, `no event name: ${call.trim()}`);
  });

  it("the shared helpers take the event name first, as a dotted name", () => {
    const log = readFileSync(path.join(SRC, "core", "log.ts"), "utf8");
    for (const fn of ["logError", "logWarn", "logInfo"]) assert.match(log, new RegExp(`export function ${fn}\\(event: LogEvent,`), fn);
    const named = sources(SRC).flatMap((f) => [...readFileSync(f, "utf8").matchAll(/\blog(?:Error|Warn|Info)\(\s*("[^"]*"|`[^`]*`)/g)].map((m) => m[1]));
    assert.ok(named.length >= 20, `${named.length} calls`);
    for (const name of named) assert.match(name, /^"[a-z]+\.[a-z_]+"$/, `event name ${name}`);
  });
});
