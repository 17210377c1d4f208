// The scan publishers' bounds (store/scanStream.ts PUBLISH_BOUNDS): against a Pub/Sub that never answers (a
// loopback socket that accepts and stays silent), a publish gives up within its total budget instead of the
// library's 10 minutes, releases what it held, and past its in-flight bound a publish is refused at once.
import assert from "node:assert/strict";
import net, { type AddressInfo } from "node:net";
import { boundedPublisher, PUBLISH_BOUNDS, type BoundedPublisher } from "../../functions/src/store/scanStream";
import { PUBLISH_WAIT_MS } from "../../functions/src/scans/arrival";
import { STREAM_WAIT_MS } from "../../functions/src/scans/record";

describe("scan publishers: bounded retries and messages in flight", function () {
  this.timeout(15_000);
  let server: net.Server;
  const sockets = new Set<net.Socket>();
  let endpoint: { apiEndpoint: string };
  const opened: BoundedPublisher[] = [];
  const publisher = (...args: Parameters<typeof boundedPublisher>) => {
    const made = boundedPublisher(...args);
    opened.push(made);
    return made;
  };

  before(async () => {
    // A black hole: connections are accepted and never answered (no HTTP/2 settings, no response).
    server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    endpoint = { apiEndpoint: `127.0.0.1:${(server.address() as AddressInfo).port}` };
  });
  after(async () => {
    await Promise.all(opened.map((p) => p.close()));
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("each topic's budget is under what waits for it: the redirect's wait for an arrival, the stream's wait, the consumer's push deadline", () => {
    assert.ok(PUBLISH_BOUNDS.arrivals.totalMs < PUBLISH_WAIT_MS, "an arrival's publish gives up before the redirect writes the outbox copy");
    assert.ok(PUBLISH_BOUNDS.stream.totalMs <= STREAM_WAIT_MS);
    assert.ok(PUBLISH_BOUNDS.stream.totalMs <= 60_000 / 10, "a tenth of the consumer's push deadline (timeoutSeconds 60) at most");
    for (const bounds of Object.values(PUBLISH_BOUNDS)) assert.ok(bounds.callMs <= bounds.totalMs);
  });

  it("a publish to a Pub/Sub that never answers gives up within the arrivals' budget and holds nothing after", async () => {
    const arrivals = publisher("scan-arrivals", 1, PUBLISH_BOUNDS.arrivals, endpoint);
    const started = Date.now();
    const error = await arrivals.publish(Buffer.from("{}"), { scan_id: "s".repeat(22) }).then(
      () => assert.fail("a black hole answered"),
      (e: unknown) => e as { code?: number; message: string },
    );
    const took = Date.now() - started;
    assert.ok(error.code === 4 || /timeout|deadline/i.test(error.message), error.message);
    // Slack for a loaded machine's timers: the point is seconds, not the library's ten minutes.
    assert.ok(took < PUBLISH_BOUNDS.arrivals.totalMs + 5_000, `gave up after ${took} ms (budget ${PUBLISH_BOUNDS.arrivals.totalMs} ms; the library's default is 600 s)`);
    assert.deepEqual(arrivals.inFlight, { messages: 0, bytes: 0 });
  });

  it("past its in-flight bound a publish is refused at once, and taken again once the stuck ones gave up", async () => {
    const stream = publisher("scan-events", 10, { callMs: 500, totalMs: 500, maxMessages: 3, maxBytes: 1024 * 1024 }, endpoint);
    const stuck = [1, 2, 3].map((i) => stream.publish(Buffer.from(`{"n":${i}}`), {}).catch((e: unknown) => e));
    assert.equal(stream.inFlight.messages, 3);
    const started = Date.now();
    await assert.rejects(stream.publish(Buffer.from("{}"), {}), (e: { code?: number; message: string }) => e.code === 8 && /in flight/.test(e.message));
    assert.ok(Date.now() - started < 100, "refused without waiting");
    await Promise.all(stuck);
    assert.deepEqual(stream.inFlight, { messages: 0, bytes: 0 });
    const again = stream.publish(Buffer.from("{}"), {}).catch((e: unknown) => e);
    assert.equal(stream.inFlight.messages, 1, "taken again");
    await again;
  });

  it("the byte bound refuses a message that would pass it", async () => {
    const small = publisher("scan-events", 10, { callMs: 300, totalMs: 300, maxMessages: 100, maxBytes: 100 }, endpoint);
    await assert.rejects(small.publish(Buffer.alloc(101), {}), (e: { code?: number }) => e.code === 8);
    assert.deepEqual(small.inFlight, { messages: 0, bytes: 0 });
  });
});
