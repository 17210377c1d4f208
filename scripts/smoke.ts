// `npm run smoke`: end-to-end checks of a running deployment, the way its users reach it.
//   npm run smoke                              the local stack (started for the run if none is up)
//   SVC_API_KEY=sk-svc-... npm run smoke -- --base https://example.web.app \
//       --function-base https://us-central1-<project>.cloudfunctions.net
// Checks the site API, the caller's address as the service resolves it through Hosting and at the
// function URL (fails when the Hosting one is a proxy's), a sandbox code (decoded), MCP initialize /
// tools/list / svc.ping, a dynamic code's redirect counted with a place, and that a forged
// X-Forwarded-For changes nothing through Hosting or at the function URL. Exits 1 with the reason of the
// first failed check.
import { randomInt } from "node:crypto";
import { createConnection } from "node:net";
import jsQR from "jsqr";
import { PNG } from "pngjs";
import { Agent, fetch as undiciFetch } from "undici";
import { LOCAL_FRONT_PORTS, LOCAL_PORTS, LOCAL_PROJECT_ID } from "../functions/src/core/constants";
import { DEFAULT_VIEW, listingFor } from "../functions/src/mcp/registry";

const LOCAL_BASE = `http://127.0.0.1:${LOCAL_FRONT_PORTS.site}`;
const LOCAL_FUNCTION_BASE = `http://127.0.0.1:${LOCAL_FRONT_PORTS.functions}/${LOCAL_PROJECT_ID}/us-central1`;
const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148";

class SmokeFailure extends Error {}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function check(condition: unknown, reason: string): asserts condition {
  if (!condition) throw new SmokeFailure(reason);
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

function client(local: boolean) {
  // Locally, each run is a client of its own (a loopback address of its own), so the sandbox's daily
  // limit of the default address is not used up by repeated runs.
  const dispatcher = local ? new Agent({ localAddress: `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}` }) : undefined;
  return async (url: string, init: { method?: string; headers?: Record<string, string>; body?: string; redirect?: "manual" } = {}): Promise<Answer> => {
    const res = await undiciFetch(url, { ...init, dispatcher, signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, headers: res.headers as unknown as Headers, body, text };
  };
}

export async function runChecks(base: string, functionBase: string, apiKey: string, local: boolean): Promise<void> {
  const http = client(local);
  const step = async (name: string, run: () => Promise<string | void>) => {
    const detail = await run();
    console.log(`  ok  ${name}${detail ? `: ${detail}` : ""}`);
  };

  await step("site metadata API", async () => {
    for (const path of ["/api", "/api/site.json", "/api/status.json"]) {
      const res = await http(`${base}${path}`);
      check(res.status === 200 && res.body, `GET ${path} answered ${res.status}: ${res.text.slice(0, 200)}`);
    }
    return "/api, /api/site.json, /api/status.json";
  });

  await step("client address", async () => {
    const [viaHosting, direct] = await Promise.all([http(`${base}/api/client-address`), http(`${functionBase}/site/api/client-address`)]);
    for (const [where, res] of [["through Hosting", viaHosting], ["at the function URL", direct]] as const) {
      check(res.status === 200 && typeof res.body?.address === "string", `GET /api/client-address ${where} answered ${res.status}: ${res.text.slice(0, 200)}`);
    }
    const line = `through Hosting ${viaHosting.body.address} (Hosting's hop ${viaHosting.body.hostingHop ?? "none"}: HOSTING_HOP_RANGES can name its range), at the function URL ${direct.body.address}`;
    check(
      !viaHosting.body.viaProxy,
      `${line}: through Hosting the service resolved a proxy's address, so every visitor shares one bucket. ` +
        "Its Hosting hop is outside Google's non-customer ranges: see docs/deploy.md, step 7.",
    );
    return direct.body.viaProxy ? `${line} (a proxy's: is the operator behind one?)` : line;
  });

  const sandboxPath = "/api/generate-qr-code";
  const remaining = (res: Answer) => Number(res.headers.get("x-ratelimit-remaining"));
  let left = 0;
  await step("sandbox code that scans", async () => {
    const before = remaining(await http(`${base}${sandboxPath}`));
    check(before > 0, "this address has used its sandbox codes for today; run from another address or tomorrow");
    const url = `https://example.com/smoke/${Date.now()}`;
    const res = await http(`${base}${sandboxPath}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ url }) });
    check(res.status === 200, `POST ${sandboxPath} answered ${res.status}: ${res.text.slice(0, 200)}`);
    const png = PNG.sync.read(Buffer.from(String(res.body.code.qrImage).split(",")[1] ?? "", "base64"));
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
    check(decoded === url, `the sandbox PNG decodes to ${JSON.stringify(decoded)}, not ${url}`);
    left = remaining(res);
    check(left === before - 1, `X-RateLimit-Remaining went from ${before} to ${left}, expected ${before - 1}`);
    return `decodes to ${url}; ${left} left today`;
  });

  await step("forged X-Forwarded-For changes nothing", async () => {
    const forged = { "X-Forwarded-For": "198.51.100.23, 35.191.0.1" };
    const viaHosting = await http(`${base}${sandboxPath}`, { headers: forged });
    check(remaining(viaHosting) === left, `through Hosting a forged header moved the client to another bucket (${remaining(viaHosting)} left, expected ${left})`);
    const direct = await http(`${functionBase}/sandbox${sandboxPath}`, { headers: forged });
    check(direct.status === 200, `the function URL answered ${direct.status}: ${direct.text.slice(0, 200)}`);
    check(remaining(direct) === left, `at the function URL a forged header moved the client to another bucket (${remaining(direct)} left, expected ${left})`);
    return "same client through Hosting and at the function URL";
  });

  const rpc = async (method: string, params?: unknown) => {
    const res = await http(`${base}/api/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: randomInt(1, 1e9), method, ...(params === undefined ? {} : { params }) }),
    });
    check(res.status === 200 && res.body?.result, `${method} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return res.body.result;
  };
  const tool = async (name: string, args: unknown) => (await rpc("tools/call", { name, arguments: args })).structuredContent;

  await step("MCP initialize, tools/list, svc.ping", async () => {
    const init = await rpc("initialize", { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "smoke", version: "1" } });
    check(init.protocolVersion === "2025-03-26" && init.serverInfo?.name === "svc-mcp", `initialize answered ${JSON.stringify(init).slice(0, 200)}`);
    const tools = (await rpc("tools/list")).tools;
    // The deployed server's default list is exactly this checkout's (the registry's), in its fixed order.
    const expected = listingFor(DEFAULT_VIEW, "2025-03-26").map((t) => t.name);
    const listed = Array.isArray(tools) ? tools.map((t: { name: string }) => t.name) : [];
    check(JSON.stringify(listed) === JSON.stringify(expected), `tools/list listed ${listed.length} tools (${listed.join(", ")}), expected ${expected.length}`);
    const ping = await tool("svc.ping", {});
    check(ping?.ok === true && ping.authMethod === "api-key", `svc.ping answered ${JSON.stringify(ping)}`);
    return `${tools.length} tools, merchant ${ping.merchantId}`;
  });

  await step("OAuth discovery for hosted agent apps", async () => {
    const challenge = await http(`${base}/api/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    const prmUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get("www-authenticate") ?? "")?.[1];
    check(challenge.status === 401 && prmUrl, `an unauthenticated tools/list answered ${challenge.status} with WWW-Authenticate ${challenge.headers.get("www-authenticate")}`);
    const prm = (await http(prmUrl!)).body;
    check(prm?.resource?.endsWith("/api/mcp") && prm.authorization_servers?.length === 1, `protected resource metadata: ${JSON.stringify(prm).slice(0, 200)}`);
    const as = (await http(`${prm.authorization_servers[0]}/.well-known/oauth-authorization-server`)).body;
    check(as?.code_challenge_methods_supported?.join() === "S256" && as.registration_endpoint, `authorization server metadata: ${JSON.stringify(as).slice(0, 200)}`);
    return `issuer ${as.issuer}`;
  });

  await step("dynamic code redirect counted with a place", async () => {
    const destination = `https://example.com/smoke-dynamic/${Date.now()}`;
    const code = await tool("svc.qr.create", { title: "smoke test", destinationUrl: destination, dynamic: true });
    check(code?.uniqueQRCodeID, `svc.qr.create answered ${JSON.stringify(code).slice(0, 200)}`);
    const res = await http(`${base}/qr/${code.uniqueQRCodeID}`, {
      redirect: "manual",
      headers: { "User-Agent": PHONE, "X-Client-Geo-City": "Forgedville", "X-Client-Geo-Region": "ZZ" },
    });
    check(res.status === 302 && res.headers.get("location") === destination, `/qr/${code.uniqueQRCodeID} answered ${res.status} to ${res.headers.get("location")}`);
    // The hosted image (Storage's tokenized URL, or the local image store's) scans to the code's link.
    const image = await fetch(code.qrImageUrl);
    check(image.ok, `the hosted image ${code.qrImageUrl} answered ${image.status}`);
    const png = PNG.sync.read(Buffer.from(await image.arrayBuffer()));
    const link = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
    check(link?.endsWith(`/qr/${code.uniqueQRCodeID}`), `the hosted image decodes to ${JSON.stringify(link)}, not the code's link`);
    let analytics: any;
    for (let i = 0; i < 60; i++) {
      analytics = await tool("svc.qr.get_analytics", { codeId: code.codeId, days: 1 });
      if (analytics?.totalScans >= 1) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    check(analytics?.totalScans === 1, `the scan was not counted within 60 s (totalScans ${analytics?.totalScans})`);
    const [scan] = analytics.scans;
    check(scan.city !== "Forgedville", "a client-sent geo header placed the scan");
    check(scan.city !== "unknown" && scan.state !== "unknown", `the scan has no place (${scan.city}, ${scan.state})`);
    return `counted in ${scan.city}, ${scan.state}`;
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

async function main(): Promise<number> {
  const base = (arg("base") ?? LOCAL_BASE).replace(/\/+$/, "");
  const local = base === LOCAL_BASE;
  const functionBase = (arg("function-base") ?? (local ? LOCAL_FUNCTION_BASE : "")).replace(/\/+$/, "");
  let apiKey = process.env.SVC_API_KEY ?? "";
  let stop: (() => Promise<void>) | undefined;
  try {
    if (!functionBase) throw new SmokeFailure("give --function-base (e.g. https://us-central1-<project>.cloudfunctions.net)");
    if (local && !(await portOpen(LOCAL_FRONT_PORTS.site))) {
      console.log("no local stack is running: starting one for this run...");
      const { Stack } = await import("./lib/stack");
      const stack = new Stack();
      stop = () => stack.stop();
      stack.stopOnSignals();
      Object.assign(process.env, (await stack.start()).env);
    }
    if (!apiKey && local) {
      process.env.FIRESTORE_EMULATOR_HOST ??= "127.0.0.1:8080";
      process.env.FIREBASE_AUTH_EMULATOR_HOST ??= `127.0.0.1:${LOCAL_PORTS.auth}`;
      process.env.GCLOUD_PROJECT ??= LOCAL_PROJECT_ID;
      apiKey = (await (await import("./lib/seed")).seedDemo()).apiKey;
    }
    if (!apiKey) throw new SmokeFailure("set SVC_API_KEY to a key with the qr:write and merchant:read scopes");
    console.log(`smoke checks against ${base} (function URLs ${functionBase})`);
    await runChecks(base, functionBase, apiKey, local);
    console.log("smoke: all checks passed");
    return 0;
  } catch (error) {
    console.error(`smoke FAILED: ${error instanceof SmokeFailure ? error.message : error instanceof Error ? error.stack : String(error)}`);
    return 1;
  } finally {
    await stop?.();
  }
}

// Run as a command; test/stack/smoke.test.ts runs the same checks inside the stack tier.
if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
