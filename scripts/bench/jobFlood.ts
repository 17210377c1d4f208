// `npm run bench jobflood`: how one workspace flooding the catalogue queue delays another's job, with the
// per-workspace share (store/jobQueue.ts, takeJobSlot) on and off. Cloud Tasks cannot be run here (its
// emulator ignores scheduleTime), so the queue is simulated in virtual time as deployed: 10 dispatches at
// once (jobs/task.ts), tasks dispatched by schedule time then in the order queued, a step that finds its
// workspace's slots held queued again 30 s later (SLOT_RETRY_MS) and its dispatch freed at once. Every
// slot decision is the real transaction against the Firestore emulator, given the virtual time as `now`;
// a deferral occupies its dispatch for the transaction's measured time. It asserts nothing.
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { JOB_SLOTS_PER_WORKSPACE, releaseJobSlot, takeJobSlot } from "../../functions/src/store/jobQueue";

const DISPATCHES = 10;
const SLOT_RETRY_MS = 30_000;

interface Job {
  merchantId: string;
  jobId: string;
  submitAt: number;
  /** Each step's run time (a chunk step runs up to 60 s, jobs/service.ts STEP_BUDGET_MS). */
  steps: number[];
  done: number;
  finishedAt?: number;
}

interface Task {
  job: Job;
  at: number;
  seq: number;
}

interface Outcome {
  /** Each job's submit-to-finish time, ms of virtual time. */
  latency: Map<string, number>;
  deferrals: number;
  transactionMs: number[];
  makespanMs: number;
}

async function simulate(jobs: Job[], share: boolean): Promise<Outcome> {
  const base = Date.now() + 86_400_000 * 30; // the virtual clock starts past any lease the real runs left
  const queue: Task[] = jobs.map((job, i) => ({ job, at: job.submitAt, seq: i }));
  let seq = queue.length;
  const busyUntil: number[] = new Array<number>(DISPATCHES).fill(0);
  const finishing: Array<{ at: number; job: Job; token: string | null }> = [];
  const transactionMs: number[] = [];
  let deferrals = 0;
  let now = 0;
  const remaining = () => jobs.some((j) => j.finishedAt === undefined);
  while (remaining()) {
    // Steps whose run ends by `now` release their slot and queue the job's next step.
    finishing.sort((a, b) => a.at - b.at);
    while (finishing.length && finishing[0].at <= now) {
      const f = finishing.shift()!;
      if (f.token) await releaseJobSlot(f.job.merchantId, f.job.jobId, f.token);
      f.job.done++;
      if (f.job.done === f.job.steps.length) f.job.finishedAt = f.at;
      else queue.push({ job: f.job, at: f.at, seq: seq++ });
    }
    queue.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const free = busyUntil.findIndex((t) => t <= now);
    const head = queue[0];
    if (free >= 0 && head && head.at <= now) {
      queue.shift();
      let token: string | null = "off";
      if (share) {
        const started = performance.now();
        token = await takeJobSlot(head.job.merchantId, head.job.jobId, new Date(base + now));
        transactionMs.push(performance.now() - started);
      }
      if (!token) {
        deferrals++;
        busyUntil[free] = now + Math.ceil(transactionMs.at(-1)!);
        queue.push({ job: head.job, at: now + SLOT_RETRY_MS, seq: seq++ });
      } else {
        const runs = head.job.steps[head.job.done];
        busyUntil[free] = now + runs;
        finishing.push({ at: now + runs, job: head.job, token: share ? token : null });
      }
      continue;
    }
    // Nothing to dispatch at `now`: move to the next event (a dispatch freed, a step ended, a task due).
    const next = Math.min(...busyUntil.filter((t) => t > now), ...finishing.map((f) => f.at), ...queue.map((t) => Math.max(t.at, now + 1)).filter((t) => t > now));
    if (!Number.isFinite(next)) break;
    now = next;
  }
  return { latency: new Map(jobs.map((j) => [j.jobId, j.finishedAt! - j.submitAt])), deferrals, transactionMs, makespanMs: Math.max(...jobs.map((j) => j.finishedAt!)) };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

export async function benchJobFlood(): Promise<void> {
  const FLOOD_JOBS = Number(process.env.FLOOD_JOBS ?? 20);
  const FLOOD_STEPS = Number(process.env.FLOOD_STEPS ?? 5);
  const run = randomBytes(3).toString("hex");
  // The flood: FLOOD_JOBS jobs of FLOOD_STEPS 60 s steps, all queued at once (what a workspace can send
  // in its first minutes: 20 jobs a credential an hour, packages of existing codes among them).
  // The others: three workspaces, each one job of three 20 s steps, queued 1, 5 and 20 minutes in.
  const scenario = (tag: string, withFlood: boolean): Job[] => [
    ...(withFlood ? Array.from({ length: FLOOD_JOBS }, (_, i) => ({ merchantId: `flood_${run}_${tag}`, jobId: `job_flood_${i}`, submitAt: 0, steps: new Array<number>(FLOOD_STEPS).fill(60_000), done: 0 })) : []),
    ...[60_000, 300_000, 1_200_000].map((submitAt, i) => ({ merchantId: `other${i}_${run}_${tag}`, jobId: `job_other_${i}`, submitAt, steps: [20_000, 20_000, 20_000], done: 0 })),
  ];
  console.log(`\njob queue flood: ${DISPATCHES} dispatches, ${JOB_SLOTS_PER_WORKSPACE} slots a workspace; flood ${FLOOD_JOBS} jobs x ${FLOOD_STEPS} steps of 60 s; 3 other workspaces, one job of 3 x 20 s each (queued at 1, 5, 20 min)`);
  const rows: Array<[string, Outcome]> = [
    ["alone (no flood)", await simulate(scenario("alone", false), true)],
    ["flood, share off", await simulate(scenario("off", true), false)],
    ["flood, share on", await simulate(scenario("on", true), true)],
  ];
  console.log("  case                 | other job 1 | other job 2 | other job 3 | flood done at | deferrals | slot tx median / p95");
  for (const [name, o] of rows) {
    const others = [0, 1, 2].map((i) => seconds(o.latency.get(`job_other_${i}`)!));
    const floodDone = name.startsWith("alone") ? "-" : seconds(Math.max(...[...o.latency].filter(([id]) => id.startsWith("job_flood")).map(([, ms]) => ms)));
    const tx = [...o.transactionMs].sort((a, b) => a - b);
    const q = (p: number) => (tx.length ? tx[Math.min(tx.length - 1, Math.floor(p * tx.length))].toFixed(1) : "-");
    console.log(`  ${name.padEnd(20)} | ${others.map((s) => s.padStart(11)).join(" | ")} | ${floodDone.padStart(13)} | ${String(o.deferrals).padStart(9)} | ${q(0.5)} / ${q(0.95)} ms`);
  }
}
