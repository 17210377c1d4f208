// Starts simulated redirect instances (test/fixtures/redirect-instance-server.ts), each a Node 22 process
// of its own against the stack's emulators, and stops them.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { NODE22 } from "../../scripts/lib/stack";

export interface RedirectInstance {
  origin: string;
  child: ChildProcess;
  holdLinkReads(ms: number): Promise<void>;
  failLinkReads(on: boolean): Promise<void>;
  stats(): Promise<{ ops: { reads: number; writes: number; deletes: number }; documents: { busiest: { path: string; writesInOneSecond: number; total: number } | null; documents: number }; cpuMicros: number }>;
}

const FIXTURE = path.resolve(__dirname, "..", "fixtures", "redirect-instance-server.ts");
const ROOT = path.resolve(__dirname, "..", "..");

export async function startRedirectInstances(count: number, env: NodeJS.ProcessEnv = {}): Promise<RedirectInstance[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const child = spawn(NODE22, ["--import", "tsx", FIXTURE], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, NODE_ENV: "production", ...env } });
      const line = await new Promise<string>((resolve, reject) => {
        const lines = createInterface({ input: child.stdout! });
        lines.once("line", (first) => {
          resolve(first);
          // The function's own log lines: warnings and errors are shown, the rest dropped.
          lines.on("line", (l) => /"severity":"(WARNING|ERROR)"/.test(l) && process.stderr.write(`[redirect instance] ${l.slice(0, 600)}\n`));
        });
        child.once("exit", (code) => reject(new Error(`redirect instance exited with ${code}`)));
      });
      const origin = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
      return {
        origin,
        child,
        async holdLinkReads(ms: number) {
          await (await fetch(`${origin}/__hold-link-reads?ms=${ms}`)).json();
        },
        async failLinkReads(on: boolean) {
          await (await fetch(`${origin}/__fail-link-reads?on=${on ? 1 : 0}`)).json();
        },
        async stats() {
          return (await fetch(`${origin}/__stats`)).json();
        },
      };
    }),
  );
}

export async function stopRedirectInstances(instances: RedirectInstance[]): Promise<void> {
  await Promise.all(
    instances.map(
      (i) =>
        new Promise<void>((resolve) => {
          if (i.child.exitCode !== null) return resolve();
          i.child.once("exit", () => resolve());
          i.child.kill("SIGKILL");
        }),
    ),
  );
}
