// The local stand-in for the layer every production request passes before our code: Google's front end
// and, on the site's address, the Firebase Hosting edge. It listens on the public addresses and forwards
// to the emulators, appending to X-Forwarded-For exactly what production appends (docs/decisions.md,
// "The client address"):
//   site (Hosting):       <whatever the client sent>, <client>, <Hosting hop>
//   function URL (direct): <whatever the client sent>, <client>
// Where Google's Hosting hop comes from is not published, so the hop is a setting (FRONT_HOSTING_HOP);
// the default lies outside the ranges the service once hard-coded, so tests prove the walk trusts all
// of Google's non-customer space rather than one guess.
// Merchants' own hosts (docs/domains.md, "Serving") come through a third path, Google's load balancer,
// which this front plays on its HTTPS port: TLS ends here, by SNI, with a certificate for each host the
// local issuer has issued for (signed by the local CA, scripts/lib/localCa.ts), and every request goes to
// the redirect function with its Host as the client sent it:
//   load balancer:        <whatever the client sent>, <client>, <load balancer address>
// Clients are told apart by the address they connect from (127.0.0.2, 127.0.0.3, ...), never by a
// header they write. By default each loopback client is presented as a public address of its own
// (publicAddressOf), so the geolocation lookup production uses finds a real city for local scans.
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import tls from "node:tls";
import { issueCertificate, type LocalCa } from "./localCa";

/**
 * The Hosting hop appended after the client by default: a Google-owned address outside Google Cloud
 * customer space (in googleRanges.json's googleNotCloud) and outside 35.191.0.0/16 and 130.211.0.0/22.
 */
export const DEFAULT_HOSTING_HOP = "142.250.189.4";

/** The hop this machine's front appends: FRONT_HOSTING_HOP, else the default. */
export function hostingHop(env: NodeJS.ProcessEnv = process.env): string {
  const hop = env.FRONT_HOSTING_HOP?.trim() || DEFAULT_HOSTING_HOP;
  if (!isIP(hop)) throw new Error(`FRONT_HOSTING_HOP: "${hop}" is not an IP address`);
  return hop;
}

/**
 * A public IPv4 address standing for a loopback client: 127.a.b.c becomes 73.a.b.c (a US consumer ISP
 * block, where the bundled geolocation database knows city and state). One-to-one, so distinct local
 * clients stay distinct clients.
 */
export function publicAddressOf(loopback: string): string {
  const match = /^(?:::ffff:)?127\.(\d+)\.(\d+)\.(\d+)$/.exec(loopback);
  return match ? `73.${match[1]}.${match[2]}.${match[3]}` : loopback.replace(/^::ffff:/, "");
}

export interface FrontRoute {
  /** Address clients connect to. */
  listenPort: number;
  /** Emulator this front forwards to. */
  targetPort: number;
  /** True for the Hosting path (adds the Hosting hop), false for a direct function URL. */
  viaHosting: boolean;
  /** The load balancer path: TLS by SNI, the path put under a function's, this address appended. */
  loadBalancer?: LoadBalancerRoute;
}

export interface LoadBalancerRoute {
  /** The function every request goes to: `/<project>/<region>/<function>` on targetPort. */
  functionPath: string;
  /** The address the load balancer appends after the client (the one merchants' A records name). */
  hop: string;
  ca: LocalCa;
  /** The load balancer's own name (the CNAME target): its certificate is the one a client without SNI, or with an unknown name, gets. */
  defaultHost: string;
  /** Whether a host has a certificate: its domain is served (the local issuer issued for it). */
  isServed(hostname: string): Promise<boolean>;
  /**
   * The upstream is firebase-tools' Functions emulator, which builds a URL from each request's Host and,
   * for a Host that is no URL host (a space, a punycode label that does not decode), throws inside its
   * handler and never answers: such a request is refused here with 400, as a load balancer refuses a
   * malformed Host. The service host (`npm test`'s in-process tiers) answers them itself, so they reach
   * the function there.
   */
  refuseUnparsableHosts?: boolean;
}

/** Whether a Host header value parses as a URL's host (as the Functions emulator parses it). */
export function parsesAsHost(host: string): boolean {
  try {
    new URL(`http://${host}/`);
    return true;
  } catch {
    return false;
  }
}

export interface FrontOptions {
  host: string;
  routes: FrontRoute[];
  /** Present loopback clients as public addresses (default true); false passes 127.x.y.z through. */
  publicAddresses?: boolean;
  /** The address the Hosting route appends after the client (default: hostingHop()). */
  hostingHop?: string;
}

/** The emulators a local console page talks to from the browser: Auth (9099) and, where it runs, Storage (9199). */
const EMULATOR_ORIGINS = { "connect-src": ["http://127.0.0.1:9099", "http://localhost:9099"], "img-src": ["http://127.0.0.1:9199", "http://localhost:9199"] } as const;

/**
 * firebase.json holds the production Content-Security-Policy of the console and consent pages, which
 * allows no loopback origin. Locally the browser signs in against the Auth emulator, so the front adds the
 * emulators' origins to a page's `connect-src` and `img-src`: a local-only difference, as the emulators are.
 */
export function withEmulatorOrigins(csp: string): string {
  return csp
    .split(";")
    .map((directive) => {
      const name = directive.trim().split(/\s+/)[0] as keyof typeof EMULATOR_ORIGINS;
      return name in EMULATOR_ORIGINS ? `${directive.trimEnd()} ${EMULATOR_ORIGINS[name].join(" ")}` : directive;
    })
    .join(";");
}

// Hop-by-hop headers (RFC 9110 7.6.1) are not forwarded.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]);

/**
 * Headers only the emulators add: their own express servers send X-Powered-By, which neither Hosting nor
 * the Functions Framework (it disables it) sends in production. Our apps remove it themselves too
 * (http/rest.ts securityHeaders, checked by test/unit/security-headers.test.ts).
 */
const EMULATOR_ONLY = new Set(["x-powered-by"]);

function forwardedHeaders(req: http.IncomingMessage, route: FrontRoute, presentAsPublic: boolean, hop: string): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
  }
  const peer = req.socket.remoteAddress ?? "";
  const client = presentAsPublic ? publicAddressOf(peer) : peer.replace(/^::ffff:/, "");
  const appended = route.viaHosting ? [client, hop] : route.loadBalancer ? [client, route.loadBalancer.hop] : [client];
  const sent = req.headers["x-forwarded-for"];
  const supplied = Array.isArray(sent) ? sent.join(", ") : sent;
  headers["x-forwarded-for"] = [supplied, ...appended].filter(Boolean).join(", ");
  return headers;
}

/**
 * Whether a merchant's host is served, from its claim in the Firestore emulator (domainHosts/{host},
 * `serving`: store/domains.ts), read over the emulator's REST API as its owner.
 */
export function servedByClaim(firestoreHost: string, projectId: string): (hostname: string) => Promise<boolean> {
  return async (hostname) => {
    const url = `http://${firestoreHost}/v1/projects/${projectId}/databases/(default)/documents/domainHosts/${encodeURIComponent(hostname)}`;
    const res = await fetch(url, { headers: { Authorization: "Bearer owner" } });
    if (res.status === 404) return false;
    if (!res.ok) throw new Error(`domainHosts/${hostname}: ${res.status}`);
    const doc = (await res.json()) as { fields?: { serving?: { booleanValue?: boolean } } };
    return doc.fields?.serving?.booleanValue === true;
  };
}

/**
 * The TLS side of the load balancer: the default certificate (its own name) and, by SNI, a certificate
 * for each served host, made once per host and asked about at every handshake (a detached host's name
 * gets the default certificate from the next handshake on, which a client rejects).
 */
function sniOptions(lb: LoadBalancerRoute): https.ServerOptions {
  const contexts = new Map<string, tls.SecureContext>();
  const contextOf = (hostname: string) => {
    let context = contexts.get(hostname);
    if (!context) {
      const issued = issueCertificate(lb.ca, hostname);
      context = tls.createSecureContext({ cert: issued.certPem, key: issued.keyPem });
      contexts.set(hostname, context);
    }
    return context;
  };
  const own = issueCertificate(lb.ca, lb.defaultHost);
  return {
    cert: own.certPem,
    key: own.keyPem,
    SNICallback: (servername, done) => {
      const name = servername.toLowerCase().replace(/\.$/, "");
      if (name === lb.defaultHost) return done(null, contextOf(name));
      lb.isServed(name).then(
        (served) => done(null, served ? contextOf(name) : undefined),
        (error: Error) => done(error, undefined),
      );
    },
  };
}

export interface RunningFront {
  close(): Promise<void>;
}

function validPercentEncoding(url: string): boolean {
  try {
    decodeURI(url);
    return true;
  } catch {
    return false;
  }
}

/** Whether a request line parses as a URL against a host, as the Hosting emulator parses it. */
export function parsesAsUrl(path: string): boolean {
  try {
    new URL(path, "http://127.0.0.1:5000");
    return true;
  } catch {
    return false;
  }
}

export async function startFront(options: FrontOptions): Promise<RunningFront> {
  const hop = options.hostingHop ?? hostingHop();
  // Idle sockets are closed after 3 s, before the emulators close them (Node servers: 5 s), so a request is
  // never sent on a socket the other side is closing (an ECONNRESET the client would see as a 502).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 3_000 });
  const servers: http.Server[] = [];
  for (const route of options.routes) {
    const handler: http.RequestListener = (req, res) => {
      // The Hosting emulator (superstatic) throws on a path that is not valid percent-encoding and
      // answers 500; a front end refuses such a request line itself. The functions answer 400 for it
      // too when reached directly (test/service/hardening.test.ts checks both).
      if (route.viaHosting && !validPercentEncoding(req.url ?? "/")) {
        res.writeHead(400, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: "Bad Request", code: "INVALID_REQUEST", message: "The request path is not valid percent-encoding", hint: "Percent-encode the path as UTF-8.", status: 400 }));
        return;
      }
      // It also parses each request line as a URL against its own host, unguarded: a line that is no URL
      // there ("//3979441786891849275055265695/x": an authority with an impossible IPv4 host) throws out of
      // the emulator and stops the whole stack. Production's front end answers such a line; here it is 400.
      if (route.viaHosting && !parsesAsUrl(req.url ?? "/")) {
        res.writeHead(400, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: "Bad Request", code: "INVALID_REQUEST", message: "The request path is not a valid URL path", hint: "Send a path that starts with a single /.", status: 400 }));
        return;
      }
      // It also stats the file system for each path under a folder of static files (/console, /oauth,
      // /docs), and a segment longer than a file name can be (255 bytes) makes that throw: 500 again.
      if (route.viaHosting && (req.url ?? "/").split("?")[0].split("/").some((segment) => segment.length > 255)) {
        res.writeHead(414, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: "URI Too Long", code: "INVALID_REQUEST", message: "A path segment is longer than 255 bytes", hint: "Shorten the path.", status: 414 }));
        return;
      }
      if (route.loadBalancer?.refuseUnparsableHosts && !parsesAsHost(req.headers.host ?? "")) {
        res.writeHead(400, { "Content-Type": "text/html; charset=utf-8" });
        res.end("<!doctype html><title>Bad Request</title><p>Bad Request: the Host header is not a host name.</p>");
        return;
      }
      // The body is read whole before it is sent, so a request can be sent a second time (below).
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("error", () => res.destroy());
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const send = (retried: boolean): void => {
          const upstream = http.request(
            {
              host: options.host,
              port: route.targetPort,
              method: req.method,
              path: route.loadBalancer ? `${route.loadBalancer.functionPath}${req.url ?? "/"}` : req.url,
              headers: forwardedHeaders(req, route, options.publicAddresses !== false, hop),
              // The second try takes a socket of its own, never another kept-alive one.
              agent: retried ? false : agent,
            },
            (answer) => {
              const headers: http.OutgoingHttpHeaders = {};
              for (const [name, value] of Object.entries(answer.headers)) {
                if (!HOP_BY_HOP.has(name) && !EMULATOR_ONLY.has(name) && value !== undefined) headers[name] = value;
              }
              const csp = headers["content-security-policy"];
              if (route.viaHosting && typeof csp === "string" && /\bhttps:\/\/identitytoolkit\.googleapis\.com\b/.test(csp)) headers["content-security-policy"] = withEmulatorOrigins(csp);
              res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
              answer.pipe(res);
            },
          );
          upstream.on("error", (error: NodeJS.ErrnoException) => {
            // A reset on a kept-alive socket before any answer is the race the 3 s idle timeout is meant to
            // avoid: the emulator closed the idle socket as the request went out, so it never read it. On a
            // loaded machine that timer fires late; a front end sends such a request again on a fresh socket.
            if (!retried && upstream.reusedSocket && error.code === "ECONNRESET" && !res.headersSent) {
              send(true);
              return;
            }
            if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" });
            res.end("front: upstream unavailable");
          });
          upstream.end(body);
        };
        send(false);
      });
    };
    const server = route.loadBalancer ? https.createServer(sniOptions(route.loadBalancer), handler) : http.createServer(handler);
    server.keepAliveTimeout = 620_000; // outlive clients' idle sockets, as Google's front end does
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(route.listenPort, options.host, () => resolve());
    });
    servers.push(server);
  }
  return {
    async close() {
      agent.destroy();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}
