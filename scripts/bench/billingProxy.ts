// A loopback proxy between a process's Firestore client (its REST transport, as deployed) and the emulator
// that counts what Firestore would bill: a document read per document asked of a batchGet or returned by a
// query (at least one per query), a write per write of a commit, a delete per delete. The bench puts the
// scan consumer behind it: every operation is counted, whichever layer of the code sent it.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Billed {
  reads: number;
  writes: number;
  deletes: number;
  /** Requests by REST method (`commit`, `batchGet`, `runQuery`, ...). */
  calls: Record<string, number>;
}

export interface BillingProxy {
  /** host:port, for the FIRESTORE_EMULATOR_HOST of the process to count. */
  host: string;
  billed(): Billed;
  close(): Promise<void>;
}

export async function startBillingProxy(target = process.env.FIRESTORE_EMULATOR_HOST): Promise<BillingProxy> {
  if (!target) throw new Error("FIRESTORE_EMULATOR_HOST is not set");
  const [targetHost, targetPort] = target.split(":");
  const agent = new http.Agent({ keepAlive: true });
  const billed: Billed = { reads: 0, writes: 0, deletes: 0, calls: {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const method = /:([A-Za-z]+)(?:\?|$)/.exec(req.url ?? "")?.[1] ?? (req.method === "GET" ? "get" : "other");
      billed.calls[method] = (billed.calls[method] ?? 0) + 1;
      const sent = parseJson(body);
      if (method === "get") billed.reads++;
      if (method === "batchGet") billed.reads += (sent?.documents as unknown[] | undefined)?.length ?? 0;
      if (method === "commit") {
        for (const write of (sent?.writes as Array<Record<string, unknown>> | undefined) ?? []) {
          if ("delete" in write) billed.deletes++;
          else billed.writes++;
        }
      }
      if (method === "runAggregationQuery") billed.reads++;
      const upstream = http.request({ host: targetHost, port: Number(targetPort), method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (method !== "runQuery") return void answer.pipe(res);
        // A query is billed per document it returns, one at least.
        const parts: Buffer[] = [];
        answer.on("data", (c: Buffer) => (parts.push(c), res.write(c)));
        answer.on("end", () => {
          const results = parseJson(Buffer.concat(parts)) as unknown;
          const documents = Array.isArray(results) ? results.filter((r) => r && typeof r === "object" && "document" in r).length : 0;
          billed.reads += Math.max(1, documents);
          res.end();
        });
      });
      upstream.on("error", (error) => (res.headersSent ? res.destroy(error) : res.writeHead(502).end(String(error))));
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    billed: () => ({ ...billed, calls: { ...billed.calls } }),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()), agent.destroy())),
  };
}

/** A JSON body, or undefined when it is not JSON. */
export function parseJson(body: Buffer): Record<string, unknown> | undefined {
  try {
    return JSON.parse(body.toString("utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
