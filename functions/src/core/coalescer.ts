// Group commit for Firestore round trips within one instance: while one call is in flight, later
// submissions queue and go together in the next call. An idle instance pays no added latency; a busy
// one (Cloud Functions v2 serves many concurrent requests per instance) makes far fewer RPCs.
// Every caller still awaits its own result, so nothing is acknowledged before it is durable.
interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (reason: unknown) => void;
}

export class Coalescer<I, O> {
  private queue: Pending<I, O>[] = [];
  private draining = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 100,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.maxBatch);
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
