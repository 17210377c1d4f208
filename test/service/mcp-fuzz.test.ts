import assert from "node:assert/strict";
import { scaled } from "../helpers/scale";
import { mcpUrl } from "../helpers/env";
import { createMerchant } from "../helpers/merchants";
import { prng } from "../helpers/fuzz";

const METHODS = ["initialize", "ping", "tools/list", "tools/call", "notifications/initialized", "nope", "", "tools/call", "resources/list", "resources/read", "resources/templates/list", "resources/read"];
const URIS = ["ui://svc/code.html", "ui://svc/scans.html", "ui://svc/nope.html", "", "file:///etc/passwd", "ui://svc/code.html?x=1"];
const TOOLS = ["svc.ping", "svc.merchant.get_profile", "svc.unknown", "", "svc.qr.create"];

function randomValue(rand: () => number, depth = 0): unknown {
  const pick = Math.floor(rand() * (depth > 2 ? 6 : 9));
  switch (pick) {
    case 0: return null;
    case 1: return rand() < 0.5;
    case 2: return Math.floor(rand() * 2e9) - 1e9;
    case 3: return rand() * 1e6;
    case 4: return "x".repeat(Math.floor(rand() * 40));
    case 5: return "\u0000\ud800☃" + rand();
    case 6: return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
    default: {
      const obj: Record<string, unknown> = {};
      for (let i = 0; i < Math.floor(rand() * 4); i++) obj[`k${Math.floor(rand() * 5)}`] = randomValue(rand, depth + 1);
      return obj;
    }
  }
}

function randomBody(rand: () => number): { body: string; contentType: string } {
  const kind = Math.floor(rand() * 10);
  const message = (): Record<string, unknown> => {
    const m: Record<string, unknown> = {};
    if (rand() < 0.9) m.jsonrpc = rand() < 0.9 ? "2.0" : randomValue(rand);
    if (rand() < 0.8) m.id = rand() < 0.7 ? Math.floor(rand() * 1000) : randomValue(rand);
    if (rand() < 0.9) m.method = rand() < 0.85 ? METHODS[Math.floor(rand() * METHODS.length)] : randomValue(rand);
    if (rand() < 0.7) {
      m.params =
        rand() < 0.7
          ? { name: TOOLS[Math.floor(rand() * TOOLS.length)], arguments: randomValue(rand), uri: rand() < 0.8 ? URIS[Math.floor(rand() * URIS.length)] : randomValue(rand) }
          : randomValue(rand);
    }
    return m;
  };
  switch (kind) {
    case 0: {
      const s = JSON.stringify(message());
      return { body: s.slice(0, Math.floor(rand() * s.length)), contentType: "text/plain" }; // truncated JSON
    }
    case 1: return { body: JSON.stringify(randomValue(rand)), contentType: "application/json" };
    case 2: return { body: JSON.stringify(Array.from({ length: Math.floor(rand() * 4) }, message)), contentType: "application/json" };
    case 3: return { body: String.fromCharCode(...Array.from({ length: 30 }, () => Math.floor(rand() * 128))), contentType: "text/plain" };
    default: return { body: JSON.stringify(message()), contentType: "application/json" };
  }
}

function isJsonRpcError(x: any): boolean {
  return x && x.jsonrpc === "2.0" && (x.error ? typeof x.error.code === "number" && typeof x.error.message === "string" : "result" in x);
}

describe("MCP tool server: fuzz", function () {
  this.timeout(180_000);

  // 1,000 at full size (TEST_SCALE=1), at least 100 (every body kind, both with and without a key) otherwise.
  const count = scaled(1000, 100);
  it(`answers ${count.toLocaleString("en-US")} seeded random and malformed bodies without a 5xx`, async () => {
    const merchant = await createMerchant();
    const rand = prng(20261122);
    const cases = Array.from({ length: count }, (_, i) => ({ i, ...randomBody(rand), auth: rand() < 0.5 }));
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++];
        const headers: Record<string, string> = { "Content-Type": c.contentType };
        if (c.auth) headers.Authorization = `Bearer ${merchant.apiKey}`;
        const res = await fetch(mcpUrl(), { method: "POST", headers, body: c.body });
        const text = await res.text();
        if (res.status >= 500) failures.push(`#${c.i} ${res.status}: ${c.body.slice(0, 80)}`);
        else if (res.status === 204) {
          if (text !== "") failures.push(`#${c.i} 204 with a body`);
        } else if (res.status === 400 && c.contentType === "application/json" && !text.startsWith("{") && !text.startsWith("[")) {
          // Body-parser rejection by the Functions HTTP layer (docs/decisions.md): still a 4xx, never a 5xx.
        } else {
          let parsed: any;
          try {
            parsed = JSON.parse(text);
          } catch {
            failures.push(`#${c.i} ${res.status} non-JSON: ${text.slice(0, 80)}`);
            continue;
          }
          const ok = Array.isArray(parsed) ? parsed.length > 0 && parsed.every(isJsonRpcError) : isJsonRpcError(parsed);
          if (!ok) failures.push(`#${c.i} ${res.status} not JSON-RPC: ${text.slice(0, 80)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    assert.deepEqual(failures, []);
  });
});
