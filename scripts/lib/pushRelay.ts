// Production's push delivery, relayed: the Pub/Sub emulator (gcloud 0.8.20) pushes with two loops per
// subscription, each sending one message and waiting for its answer, so a consumer behind it counts one or
// two arrivals per transaction whatever the rate (about 20 a second here). Pub/Sub itself keeps many pushes
// outstanding (it raises the number while the endpoint answers 2xx). The relay turns a push subscription
// into a pull subscription, pulls, and POSTs each message as a push (the same body) with up to
// `outstanding` in flight, acknowledging a 2xx and handing anything else back at once: the emulator
// redelivers it after the subscription's retry policy and counts the delivery towards its dead letters, as
// a push would (the pull and the push share its delivery count). Used by the bench (scripts/bench/scanPath.ts)
// and by the service tier's stack (scripts/lib/stack.ts), never deployed.
import http from "node:http";

export interface PushRelay {
  stop(): Promise<void>;
}

interface Pulled {
  ackId: string;
  message: object;
  deliveryAttempt?: number;
}

export async function relayPushes(options: { emulatorHost: string; project: string; subscription: string; endpoint: string; outstanding: number }): Promise<PushRelay> {
  const { emulatorHost, project, subscription, endpoint, outstanding } = options;
  const route = `http://${emulatorHost}/v1/projects/${project}/subscriptions/${subscription}`;
  const pubsub = async (action: string, body: unknown): Promise<{ receivedMessages?: Pulled[] }> => {
    const res = await fetch(`${route}:${action}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`Pub/Sub emulator ${action} ${subscription}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<{ receivedMessages?: Pulled[] }>;
  };
  await pubsub("modifyPushConfig", { pushConfig: {} });
  const agent = new http.Agent({ keepAlive: true, maxSockets: outstanding });
  let inFlight = 0;
  let running = true;
  const acks: string[] = [];
  const nacks: string[] = [];
  const push = (m: Pulled) =>
    new Promise<void>((resolve) => {
      const body = JSON.stringify({ message: m.message, subscription: `projects/${project}/subscriptions/${subscription}`, deliveryAttempt: m.deliveryAttempt ?? 1 });
      const req = http.request(endpoint, { method: "POST", agent, headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on("end", () => ((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300 ? acks : nacks).push(m.ackId) && resolve());
      });
      req.on("error", () => (nacks.push(m.ackId), resolve()));
      req.end(body);
    });
  const settle = async () => {
    if (acks.length) await pubsub("acknowledge", { ackIds: acks.splice(0) });
    if (nacks.length) await pubsub("modifyAckDeadline", { ackIds: nacks.splice(0), ackDeadlineSeconds: 0 });
  };
  const loop = (async () => {
    // After an empty pull the next waits 10 ms, doubling to 100 ms while none comes (the emulator's own push
    // looks every 100 ms): prompt under load, and an idle stack does not keep the emulator busy.
    for (let idle = 10; running; ) {
      try {
        await settle();
        const room = Math.min(100, outstanding - inFlight);
        const { receivedMessages = [] } = room > 0 ? await pubsub("pull", { maxMessages: room, returnImmediately: true }) : {};
        for (const m of receivedMessages) {
          inFlight++;
          void push(m).finally(() => inFlight--);
        }
        if (receivedMessages.length) idle = 10;
        else {
          await new Promise((r) => setTimeout(r, idle));
          idle = Math.min(100, idle * 2);
        }
      } catch {
        // The emulator going away (the stack stopping) or a refused call: the messages stay with the emulator.
        if (running) await new Promise((r) => setTimeout(r, 200));
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      for (const until = Date.now() + 5_000; inFlight && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
      await settle().catch(() => undefined);
      agent.destroy();
    },
  };
}
