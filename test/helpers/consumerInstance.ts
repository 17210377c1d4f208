// Starts a scan consumer instance (test/fixtures/scan-consumer-server.ts) in a Node 22 process of its own,
// with an environment of the test's choosing (its Firestore behind a proxy), and a push subscription of its
// own from a topic of its own, with the local stack's delivery policy and a dead-letter topic it keeps: so a
// test can publish arrivals to that consumer alone, and see what reaches its dead letters.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { createInterface } from "node:readline";
import { NODE22 } from "../../scripts/lib/stack";
import { CONSUMER_DELIVERY } from "../../functions/src/store/scanEvents";
import { projectId } from "./env";

const FIXTURE = path.resolve(__dirname, "..", "fixtures", "scan-consumer-server.ts");
const ROOT = path.resolve(__dirname, "..", "..");

export interface ConsumerInstance {
  origin: string;
  child: ChildProcess;
  /** The topic whose arrivals this instance alone is pushed. */
  topic: string;
  publish(messages: Array<{ data: Buffer; attributes: Record<string, string> }>): Promise<void>;
  /** Messages that reached this subscription's dead-letter topic (pulled and acknowledged). */
  deadLetters(): Promise<number>;
  /** The pushes this instance received, how many were Pub/Sub's redeliveries, and its answers by status. */
  stats(): Promise<{ pushes: number; redeliveries: number; answers: Record<string, number> }>;
  stop(): Promise<void>;
}

async function pubsub(method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(`http://${process.env.PUBSUB_EMULATOR_HOST}/v1/projects/${projectId()}${route}`, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`Pub/Sub emulator ${method} ${route}: ${res.status} ${await res.text()}`);
  return res.json();
}

export async function startConsumerInstance(env: NodeJS.ProcessEnv): Promise<ConsumerInstance> {
  const child = spawn(NODE22, ["--import", "tsx", FIXTURE], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, NODE_ENV: "production", ...env } });
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (first) => {
      resolve(first);
      // The function's own log lines: warnings and errors are shown, the rest dropped.
      lines.on("line", (l) => /"severity":"(WARNING|ERROR)"/.test(l) && process.stderr.write(`[consumer instance] ${l.slice(0, 400)}\n`));
    });
    child.once("exit", (code) => reject(new Error(`consumer instance exited with ${code}`)));
  });
  const origin = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
  const name = `arrivals-${randomUUID().slice(0, 8)}`;
  const topic = (n: string) => `projects/${projectId()}/topics/${n}`;
  await pubsub("PUT", `/topics/${name}`, {});
  await pubsub("PUT", `/topics/${name}-dead`, {});
  await pubsub("PUT", `/subscriptions/${name}-dead-kept`, { topic: topic(`${name}-dead`) });
  const { local } = CONSUMER_DELIVERY;
  await pubsub("PUT", `/subscriptions/${name}-push`, {
    topic: topic(name),
    ackDeadlineSeconds: 60,
    pushConfig: { pushEndpoint: `${origin}/` },
    retryPolicy: { minimumBackoff: local.minBackoff, maximumBackoff: local.maxBackoff },
    deadLetterPolicy: { deadLetterTopic: topic(`${name}-dead`), maxDeliveryAttempts: local.maxAttempts },
  });
  return {
    origin,
    child,
    topic: name,
    async publish(messages) {
      await pubsub("POST", `/topics/${name}:publish`, { messages: messages.map((m) => ({ data: m.data.toString("base64"), attributes: m.attributes })) });
    },
    async deadLetters() {
      // Without returnImmediately the emulator holds a pull of an empty subscription for about 90 s.
      const { receivedMessages = [] } = await pubsub("POST", `/subscriptions/${name}-dead-kept:pull`, { maxMessages: 1000, returnImmediately: true });
      if (receivedMessages.length) await pubsub("POST", `/subscriptions/${name}-dead-kept:acknowledge`, { ackIds: receivedMessages.map((m: any) => m.ackId) });
      return receivedMessages.length;
    },
    async stats() {
      return (await fetch(`${origin}/__stats`)).json();
    },
    async stop() {
      await pubsub("DELETE", `/subscriptions/${name}-push`).catch(() => undefined);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}
