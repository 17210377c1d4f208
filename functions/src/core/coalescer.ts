// Group commit for Firestore round trips within one instance: while one call is in flight, later
// submissions queue and go together in the next call. An idle instance pays no added latency; a busy
// one (Cloud Functions v2 serves many concurrent requests per instance) makes far fewer RPCs.
// Every caller still awaits its own result, so nothing is acknowledged before it is durable.
// Optional bounds (the scan commits use them): how many items may wait, and how long an item may wait
// before its turn; an item past either is refused (`refuse`) without being sent, so a stalled call never
// builds an unbounded queue behind it.
interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (reason: unknown) => void;
  queuedAt: number;
}

export interface CoalescerBounds {
  /** Items that may wait for the next call; a submission past it is refused at once. */
  maxQueued: number;
  /** An item still waiting this long when its call is made is refused instead of sent. */
  maxWaitMs: number;
  /** The error a refused item rejects with. */
  refuse: (why: "queue-full" | "waited-too-long") => Error;
}

export class Coalescer<I, O> {
  private queue: Pending<I, O>[] = [];
  private draining = false;
  private lastCall = 0;
  private lastSize = 0;
  private wake?: () => void;

  /**
   * `gatherMs`: while items overlap (the last call carried more than one), a call starts no sooner than
   * this after the previous one started, unless `maxBatch` items wait: a busy instance makes one fuller call
   * instead of many small ones, each item waiting up to this much longer. After a call of one item the
   * next goes at once: its callers come one at a time (an idle instance, or a sender that waits for each
   * answer), and waiting would only slow them down. A function is asked at each call (a setting read once
   * configured).
   */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 100,
    private readonly bounds?: CoalescerBounds,
    private readonly gatherMs: number | (() => number) = 0,
  ) {}

  /** Whether a call is in flight (a submission now waits for the next call). */
  get busy(): boolean {
    return this.draining;
  }

  /** Items waiting for the next call. */
  get queued(): number {
    return this.queue.length;
  }

  /** `since`: when the item first waited (an item submitted again keeps its first wait under maxWaitMs). */
  submit(item: I, since = Date.now()): Promise<O> {
    if (this.bounds && this.queue.length >= this.bounds.maxQueued) return Promise.reject(this.bounds.refuse("queue-full"));
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject, queuedAt: since });
      if (this.queue.length >= this.maxBatch) this.wake?.();
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length) {
        const wait = this.lastCall + (typeof this.gatherMs === "number" ? this.gatherMs : this.gatherMs()) - Date.now();
        if (wait > 0 && this.lastSize > 1 && this.queue.length < this.maxBatch) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => this.wake?.(), wait);
            this.wake = () => {
              clearTimeout(timer);
              this.wake = undefined;
              resolve();
            };
          });
        }
        this.lastCall = Date.now();
        let batch = this.queue.splice(0, this.maxBatch);
        this.lastSize = batch.length;
        if (this.bounds) {
          const oldest = Date.now() - this.bounds.maxWaitMs;
          for (const p of batch) if (p.queuedAt < oldest) p.reject(this.bounds.refuse("waited-too-long"));
          batch = batch.filter((p) => p.queuedAt >= oldest);
          if (!batch.length) continue;
        }
        try {
          const results = await this.run(batch.map((p) => p.item));
          batch.forEach((p, i) => p.resolve(results[i]));
        } catch (error) {
          batch.forEach((p) => p.reject(error));
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
