// The console's typed contract (functions/src/console/route.ts): every route of the console's table declares
// what it answers (a zod response schema, or the media type of a file), the console's own rules hold for
// each, an answer that strays from its schema fails in the emulator (on a real express app), and the
// browser's TypeScript, which derives its requests and answers from the table, has no `any`.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { z } from "zod";
import { consoleRoutes } from "../../functions/src/console/app";
import { answerOf, consoleRoute } from "../../functions/src/console/route";
import { createRestApp } from "../../functions/src/http/rest";
import { endpoint, mountEndpoints, type Endpoint } from "../../functions/src/http/endpoint";

const CONSOLE_DIR = resolve(__dirname, "../../console");
const key = (e: Endpoint) => `${e.method} ${e.path}`;

/** Routes whose declaration says nothing of what they answer: what the test below refuses. */
function undeclared(routes: readonly Endpoint[]): string[] {
  return routes.filter((r) => !answerOf(r)).map(key);
}

describe("console contract (route table)", () => {
  it("gives every console route a response schema, or the media type of the file it answers", () => {
    assert.ok(consoleRoutes.length >= 40, `${consoleRoutes.length} routes`);
    assert.deepEqual(undeclared(consoleRoutes), [], "declare `response` (consoleRoute) or `file` (consoleFileRoute) in functions/src/console/");
    const files = consoleRoutes.filter((r) => "file" in (answerOf(r) ?? {})).map(key);
    assert.deepEqual(files.sort(), ["GET /api/console/gs1/items/:itemId/qr.png", "POST /api/console/codes/:codeId/preview", "POST /api/console/codes/preview"], "only the previews and the GS1 point-of-sale code answer a file");
  });

  it("refuses a route declared without one (the check above, on a made-up table)", () => {
    const bare = endpoint({ method: "GET", path: "/api/console/bare", summary: "No answer declared", credential: "none", internal: true, handle: () => ({ ok: true }) });
    assert.deepEqual(undeclared([...consoleRoutes, bare]), ["GET /api/console/bare"]);
  });

  it("keeps the console's rules on every route: own addresses only, out of the public contract, reads counted", () => {
    for (const route of consoleRoutes) {
      const { spec } = route;
      assert.ok(route.path.startsWith("/api/console/"), key(route));
      assert.equal(spec.internal, true, `${key(route)} is internal`);
      assert.equal(spec.ownAddressOnly, true, `${key(route)} answers on the service's own addresses only`);
      if (route.method === "GET") assert.ok(spec.limit, `${key(route)} counts against a read limit`);
      else if (spec.credential !== "none") assert.ok(spec.limit || spec.standing, `${key(route)} counts or reports a limit`);
    }
    const keys = consoleRoutes.map(key);
    assert.equal(new Set(keys).size, keys.length, "one declaration per method and path: the client names routes by them");
  });

  describe("an answer that strays from its schema (emulator)", () => {
    let server: http.Server;
    let base: string;
    const Answer = z.strictObject({ ok: z.literal(true), n: z.number().int() });
    const routes = [
      consoleRoute({ method: "GET", path: "/api/console/test/good", summary: "Answers its schema", credential: "none", response: Answer, handle: () => ({ ok: true as const, n: 1 }) }),
      // The handler's type allows the extra field (it is not a fresh literal), the schema does not.
      consoleRoute({
        method: "GET",
        path: "/api/console/test/stray",
        summary: "Answers a field it does not declare",
        credential: "none",
        response: Answer,
        handle: () => {
          const answer = { ok: true as const, n: 2, secret: "leaked" };
          return answer;
        },
      }),
    ];
    before(async () => {
      const app = createRestApp((a) => mountEndpoints(a, "console", routes), { cors: "console" });
      server = http.createServer(app).listen(0, "127.0.0.1");
      await new Promise((r) => server.once("listening", r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => server.close());

    /** A GET as the front end forwards it: with the service's own Host (fetch cannot set one). */
    const get = (path: string) =>
      new Promise<{ status: number; body: { code?: string } }>((done, fail) => {
        http
          .get(`${base}${path}`, { headers: { host: "127.0.0.1:5000" } }, (res) => {
            let text = "";
            res.on("data", (chunk) => (text += chunk)).on("end", () => done({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
          })
          .on("error", fail);
      });

    it("is sent when it matches, and fails as a 500 when it does not, so the integration and browser tiers catch it", async () => {
      const good = await get("/api/console/test/good");
      assert.deepEqual(good, { status: 200, body: { ok: true, n: 1 } });
      const stray = await get("/api/console/test/stray");
      assert.equal(stray.status, 500);
      assert.equal(stray.body.code, "INTERNAL");
    });
  });
});

describe("console TypeScript (console/*.ts)", () => {
  it("has no `any`: its API types come from the route table (console/api.ts)", () => {
    // The word is kept out of comments and copy too, so this test and `grep -w any console/*.ts` agree.
    const found: string[] = [];
    for (const file of readdirSync(CONSOLE_DIR).filter((f) => f.endsWith(".ts"))) {
      readFileSync(join(CONSOLE_DIR, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (/\bany\b/.test(line)) found.push(`console/${file}:${i + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(found, []);
  });

  it("imports the server's route table for its types only (nothing of the server is bundled)", () => {
    const api = readFileSync(join(CONSOLE_DIR, "api.ts"), "utf8");
    assert.match(api, /^import type \{ ConsoleApi \} from "\.\.\/functions\/src\/console\/app";$/m);
    for (const file of readdirSync(CONSOLE_DIR).filter((f) => f.endsWith(".ts"))) {
      const text = readFileSync(join(CONSOLE_DIR, file), "utf8");
      for (const match of text.matchAll(/^import (type )?[^;]*from "\.\.\/functions\/src\/(console|oauth|images)\/[^"]+";$/gm)) {
        assert.ok(match[1], `console/${file} imports a server surface's module for its values: ${match[0]}`);
      }
    }
  });
});
