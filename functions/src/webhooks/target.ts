// Where a delivery may go, and the one guarded POST that sends it. Outside the local stack: https on port
// 443 to public addresses only, checked by the lookup of the very connection (core/publicAddress.ts), no
// redirects followed, one 5 s deadline, at most 1 KB of the answer kept.
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { isPublicAddress, publicOnlyLookup, systemResolve, type Resolver } from "../core/publicAddress";

const TARGET_DEADLINE_MS = 5_000;
const RESPONSE_KEPT_BYTES = 1_024;

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export interface TargetGuards {
  /** The local stack: loopback only, http and any port allowed (the test receiver listens on 127.0.0.1). */
  local: boolean;
  resolve: Resolver;
  deadlineMs: number;
}

export const targetGuards = (local: boolean): TargetGuards => ({ local, resolve: systemResolve, deadlineMs: TARGET_DEADLINE_MS });

/** Why a URL cannot be a target, or null. Checked when a subscription is made and again before each send. */
export function targetProblem(raw: string, local: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a URL";
  }
  if (url.username || url.password) return "must not carry credentials";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // The local stack sends to loopback only, so nothing a test or a demo subscribes leaves the machine.
  if (local) return (url.protocol === "https:" || url.protocol === "http:") && LOOPBACK.has(host) ? null : "must be on 127.0.0.1, ::1 or localhost on the local stack";
  if (url.protocol !== "https:") return "must use https";
  if (url.port !== "") return "must use port 443";
  if (isIP(host) && !isPublicAddress(host)) return "must not be a private, loopback or reserved address";
  return null;
}

interface SendOutcome {
  ok: boolean;
  responseCode: number | null;
  latencyMs: number;
  /** The first 1 KB of the answer, or why there was none (never how a name resolved). */
  detail: string;
}

export function postToTarget(raw: string, headers: Record<string, string>, body: string, guards: TargetGuards): Promise<SendOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const problem = targetProblem(raw, guards.local);
  if (problem) return Promise.resolve({ ok: false, responseCode: null, latencyMs: 0, detail: `target ${problem}` });
  const url = new URL(raw);
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, "latencyMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      resolve({ ...outcome, latencyMs: latency() });
    };
    const req = transport.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)), "User-Agent": "svc-webhooks/1" },
        ...(guards.local ? {} : { lookup: publicOnlyLookup(guards.resolve) }),
      },
      (res) => {
        const code = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on("data", (chunk: Buffer) => {
          if (kept < RESPONSE_KEPT_BYTES) chunks.push(chunk.subarray(0, RESPONSE_KEPT_BYTES - kept));
          kept += chunk.length;
          if (kept >= RESPONSE_KEPT_BYTES) done();
        });
        res.on("end", done);
        res.on("error", done);
        // A 3xx is a failure: redirects are not followed.
        function done() {
          finish({ ok: code >= 200 && code < 300, responseCode: code, detail: Buffer.concat(chunks).toString("utf8").slice(0, RESPONSE_KEPT_BYTES) });
        }
      },
    );
    const deadline = setTimeout(() => finish({ ok: false, responseCode: null, detail: `no answer within ${guards.deadlineMs} ms` }), guards.deadlineMs);
    req.on("error", () => finish({ ok: false, responseCode: null, detail: "could not connect" }));
    req.end(body);
  });
}
