// A small authenticating proxy for clients that send no credentials (the MCP conformance suite): it
// forwards every request to the service adding `Authorization: Bearer <credential>`. Like any reverse
// proxy that publishes a service under its own address, it presents its own authority in `Host` and
// `Origin` as the service's; every other `Host` or `Origin` passes through untouched, so the service still
// sees (and must refuse) foreign ones.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface AuthProxy {
  /** `upstream`'s path on the proxy's own address. */
  url: string;
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 7.6.1) are not forwarded.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]);

export async function startAuthProxy(upstream: string, credential: string): Promise<AuthProxy> {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  let own = "";
  const server = http.createServer((req, res) => {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    }
    headers.authorization = `Bearer ${credential}`;
    if (req.headers.host === own) headers.host = target.host;
    if (req.headers.origin === `http://${own}`) headers.origin = target.origin;
    const forward = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent },
      (answer) => {
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
        }
        res.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(res);
      },
    );
    forward.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" });
      res.end("proxy: upstream unavailable");
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  own = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `http://${own}${target.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
