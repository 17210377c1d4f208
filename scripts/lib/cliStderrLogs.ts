// Imported first by the admin CLI: the functions logger (named security events such as key.minted)
// captures console.info and console.debug when it loads; sending them to stderr keeps stdout for the
// command's own output, which `--json` callers parse. Only when the CLI runs as a command: tests that call
// its commands in process (test/helpers/admin.ts) keep their own console.
import path from "node:path";

if (require.main?.filename === path.join(__dirname, "..", "admin.ts")) {
  console.info = console.error.bind(console);
  console.debug = console.error.bind(console);
}
