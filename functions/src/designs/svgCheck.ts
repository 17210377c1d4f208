// The SVG's decode check for a new designed code, run in one worker thread per instance so it overlaps
// the PNG's drawing and checks on the main thread. Only where there is a second core to run it (the
// functions that make designed codes get 2 vCPUs: index.ts); on one core a worker would only add memory.
// The worker starts with an instance's first designed code; if it cannot start or dies, the check runs on
// the main thread instead: the guarantee never depends on the worker.
import { availableParallelism } from "node:os";
import { extname, join } from "node:path";
import { Worker } from "node:worker_threads";
import { logWarn } from "../core/log";
import type { SvgCheckRequest } from "./svgCheckWorker";
import { decodeSvg, sharp, type DecodeOutcome } from "./verify";

interface Pending {
  resolve: (outcomes: DecodeOutcome[]) => void;
  reject: (error: Error) => void;
}

let worker: Worker | null = null;
let inThreadOnly = availableParallelism() < 2;
let nextId = 0;
const pending = new Map<number, Pending>();

function failAll(error: Error): void {
  for (const p of pending.values()) p.reject(error);
  pending.clear();
}

function startWorker(): Worker | null {
  if (worker || inThreadOnly) return worker;
  try {
    sharp(); // libvips is loaded by the main thread before any worker loads it
    // The worker file sits beside this one: .js when built, .ts under tsx (which workers inherit).
    const started = new Worker(join(__dirname, `svgCheckWorker${extname(__filename)}`));
    started.on("message", (reply: { id: number; outcomes?: DecodeOutcome[]; error?: string }) => {
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      if (reply.outcomes) p.resolve(reply.outcomes);
      else p.reject(new Error(reply.error ?? "the SVG check failed"));
      if (!pending.size) started.unref(); // an idle worker never keeps the process alive
    });
    started.on("error", (error) => {
      // A worker that failed is not started again in this instance: every check runs in-thread from now on.
      inThreadOnly = true;
      logWarn("designs.svg_worker_failed", "designs: the SVG check worker failed; checking in-thread", { error: error.message });
      failAll(error);
    });
    started.on("exit", () => {
      if (worker === started) worker = null;
      failAll(new Error("the SVG check worker stopped"));
    });
    started.unref();
    worker = started;
  } catch {
    inThreadOnly = true;
  }
  return worker;
}

/** What both decoders read from the SVG as librsvg renders it, at each check size; the caller judges. */
export async function decodeSvgBeside(svg: string, expected: string, sides?: readonly number[]): Promise<DecodeOutcome[]> {
  const thread = startWorker();
  if (!thread) return decodeSvg(svg, expected, sides);
  const id = nextId++;
  try {
    return await new Promise<DecodeOutcome[]>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      thread.ref();
      thread.postMessage({ id, svg, expected, ...(sides ? { sides } : {}) } satisfies SvgCheckRequest);
    });
  } catch {
    return decodeSvg(svg, expected, sides); // the worker failed, not the design: check here
  }
}
