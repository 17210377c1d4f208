// Called first by the admin CLI: the functions logger (named security events such as key.minted) captures
// console.info and console.debug when it loads; sending them to stderr keeps stdout for the command's own
// output, which `--json` callers parse.
export function sendLogsToStderr(): void {
  console.info = console.error.bind(console);
  console.debug = console.error.bind(console);
}
