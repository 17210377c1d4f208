// Runs `npm start` (or another command) as a person at a terminal would: in a process group of its own,
// Ctrl-C being SIGINT to that group. Tracks every process below it, so a test can tell whether any is left
// after it exits, and clean up (only what it started) if so.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { emulatorPorts, portOpen } from "../../scripts/lib/stack";
import { LOCAL_FRONT_PORTS } from "../../functions/src/core/constants";

export const STACK_PORTS = (): number[] => [...Object.values(emulatorPorts()), LOCAL_FRONT_PORTS.site, LOCAL_FRONT_PORTS.functions];

export async function openPorts(): Promise<number[]> {
  const ports = STACK_PORTS();
  const open = await Promise.all(ports.map(portOpen));
  return ports.filter((_, i) => open[i]);
}

/** Running (a zombie is dead and holds nothing: it only waits for init, which here reaps slowly). */
function alive(pid: number): boolean {
  const state = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim();
  return state !== "" && !state.startsWith("Z");
}

export class Terminal {
  readonly child: ChildProcess;
  output = "";
  private seen = new Set<number>();
  private tracker: NodeJS.Timeout;
  readonly exited: Promise<number | null>;

  constructor(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    this.child.stdout!.on("data", (d) => (this.output += d));
    this.child.stderr!.on("data", (d) => (this.output += d));
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    this.tracker = setInterval(() => this.track(), 150);
  }

  private track(): void {
    const rows = (spawnSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" }).stdout ?? "")
      .trim()
      .split("\n")
      .map((l) => l.trim().split(/\s+/).map(Number));
    const tree = new Set<number>([this.child.pid!, ...this.seen]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const [pid, ppid] of rows) if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
    for (const pid of tree) if (pid !== this.child.pid) this.seen.add(pid);
  }

  /** Resolves when the output matches (rejects when the process exits first or after `timeoutMs`). */
  async waitFor(pattern: RegExp, timeoutMs = 240_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.output)) {
      if (this.child.exitCode !== null) throw new Error(`exited (${this.child.exitCode}) before ${pattern}:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs / 1000} s:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Ctrl-C at a terminal: SIGINT to the whole foreground group. */
  ctrlC(): void {
    this.track();
    try {
      process.kill(-this.child.pid!, "SIGINT");
    } catch {
      // already gone
    }
  }

  /** Waits for the exit, then returns the pids of processes it started that are still alive. */
  async leftovers(timeoutMs = 90_000): Promise<number[]> {
    const exit = await Promise.race([this.exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), timeoutMs))]);
    clearInterval(this.tracker);
    if (exit === "timeout") throw new Error(`still running ${timeoutMs / 1000} s after Ctrl-C:\n${this.output}`);
    // Children get a moment to finish dying after their parent exits: ask until none is left or 3 s passed.
    const deadline = Date.now() + 3_000;
    let left = [...this.seen].filter(alive);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      left = left.filter(alive);
    }
    return left;
  }

  /** `ps` lines of the given pids, for a failure message. */
  describe(pids: number[]): string {
    if (!pids.length) return "";
    return spawnSync("ps", ["-o", "pid,ppid,pgid,etime,args", "-p", pids.join(",")], { encoding: "utf8" }).stdout;
  }

  /** Kills what is left of what this terminal started (nothing else). */
  cleanUp(): void {
    clearInterval(this.tracker);
    for (const pid of [this.child.pid!, ...this.seen]) {
      if (!alive(pid)) continue;
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
}
