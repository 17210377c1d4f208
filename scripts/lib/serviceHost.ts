// The service tier's stand-in for the Hosting and Functions emulators: one Node 22 process that serves the
// built functions (functions/lib) the way the platform does, without a worker process per request.
//  - Hosting: superstatic, the engine the Hosting emulator itself runs, configured from firebase.json's
//    `hosting` section (rewrites in order, static files from hosting/, cleanUrls, headers). A function
//    rewrite goes through firebase-tools' own Hosting proxy handler (the same headers, cookie filtering and
//    timeout as the emulator), to the functions server below.
//  - Functions: every exported HTTP function at /<project>/<region>/<name>[/path], the path mapped as the
//    Functions emulator maps it, behind the body parsers its runtime uses (json, text, urlencoded, raw; 32mb;
//    rawBody kept), with `trust proxy` on. One process answers concurrent requests, as a deployed instance
//    with `concurrency` above one does.
//  - Cloud Tasks: the queue API firebase-admin calls when CLOUD_TASKS_EMULATOR_HOST is set, dispatching
//    each task to its function with the function's own retry configuration (task-queue.ts).
// What only the real emulators prove (platform quirks, separate instances per request) stays in the stack
// tier, which runs the same suite files through firebase-tools.
import http from "node:http";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { TaskQueueHost } from "./taskQueueHost";

const ROOT = path.resolve(__dirname, "..", "..");
const REGION = "us-central1";

export interface ServiceHostOptions {
  projectId: string;
  host: string;
  hostingPort: number;
  functionsPort: number;
  tasksPort: number;
}

/** KEY=value lines of a dotenv file (comments and blank lines skipped); a missing file gives nothing. */
export function readDotenv(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, "utf8").split(/\r?\n/)) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    out[match[1]] = match[2].replace(/^(["'])(.*)\1$/, "$2");
  }
  return out;
}

/**
 * The environment the Functions emulator gives a function: the project's dotenv files (.env, .env.<project>,
 * .env.local, later ones winning) and its local secrets, plus the emulator's own variables. One process
 * serves every function here, so every function sees every secret; which function declares which secret is
 * checked by the unit tier (test/unit/secrets.test.ts) and by the stack tier.
 */
export function functionEnvironment(options: ServiceHostOptions): Record<string, string> {
  const dir = path.join(ROOT, "functions");
  const files = [".env", `.env.${options.projectId}`, ".env.local", ".secret.local"];
  const fromFiles = Object.assign({}, ...files.map((f) => readDotenv(path.join(dir, f)))) as Record<string, string>;
  // Empty values in .env.local mean "not set" to the emulator as well (it skips them).
  for (const [name, value] of Object.entries(fromFiles)) if (value === "") delete fromFiles[name];
  return {
    ...fromFiles,
    FUNCTIONS_EMULATOR: "true",
    GCLOUD_PROJECT: options.projectId,
    FIREBASE_CONFIG: JSON.stringify({ projectId: options.projectId, storageBucket: `${options.projectId}.appspot.com` }),
    CLOUD_TASKS_EMULATOR_HOST: `${options.host}:${options.tasksPort}`,
  };
}

type HttpFunction = ((req: http.IncomingMessage, res: http.ServerResponse) => unknown) & { __endpoint?: Record<string, unknown> };

async function listen(server: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

export interface RunningServiceHost {
  close(): Promise<void>;
}

export async function startServiceHost(options: ServiceHostOptions): Promise<RunningServiceHost> {
  Object.assign(process.env, functionEnvironment(options));
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded after the environment above is set, as the emulator loads them */
  const express = require("express") as typeof import("express");
  const bodyParser = require("body-parser") as typeof import("body-parser");
  const exported = require(path.join(ROOT, "functions", "lib", "index.js")) as Record<string, HttpFunction | undefined>;
  /* eslint-enable @typescript-eslint/no-require-imports -- the loads above only */

  const functions = new Map<string, HttpFunction>();
  for (const [name, fn] of Object.entries(exported)) if (typeof fn === "function") functions.set(name, fn);

  // The Functions emulator runtime's app: the same parsers, limits and raw body, so a handler sees the
  // request it would see there (functionsEmulatorRuntime.js).
  const app = express();
  app.enable("trust proxy");
  const limit = "32mb";
  const rawBodySaver = (req: http.IncomingMessage, _res: http.ServerResponse, buf: Buffer) => {
    (req as http.IncomingMessage & { rawBody?: Buffer }).rawBody = buf;
  };
  app.use(bodyParser.json({ limit, verify: rawBodySaver }));
  app.use(bodyParser.text({ limit, verify: rawBodySaver }));
  app.use(bodyParser.urlencoded({ extended: true, limit, verify: rawBodySaver }));
  app.use(bodyParser.raw({ type: "*/*", limit, verify: rawBodySaver }));
  const prefix = new RegExp(`^/${options.projectId}/([^/]+)/([^/?]+)`);
  app.use((req, res) => {
    const match = prefix.exec(req.url);
    const fn = match && functions.get(match[2]);
    if (!match || !fn) {
      res.status(404).send(`Function ${match?.[2] ?? req.url} does not exist, valid functions are: ${[...functions.keys()].join(", ")}`);
      return;
    }
    // As the emulator maps it: the function sees the path after its name ("/" for none), query kept.
    // The emulator's worker receives the mapped path as a new request, so the app's originalUrl is it too.
    req.url = req.url.replace(new RegExp(`^/${options.projectId}/[^/]*/${match[2]}/?`), "/");
    req.originalUrl = req.url;
    Promise.resolve()
      .then(() => fn(req, res))
      .catch((error: unknown) => {
        console.error(`function ${match[2]} threw:`, error);
        if (!res.headersSent) res.status(500).send(error instanceof Error ? error.message : String(error));
        else res.end();
      });
  });
  const functionsServer = http.createServer(app);
  const functionsPort = await listen(functionsServer, options.functionsPort, options.host);
  const functionUrl = (name: string) => `http://${options.host}:${functionsPort}/${options.projectId}/${REGION}/${name}`;

  const tasks = new TaskQueueHost(functions, functionUrl);
  const tasksServer = http.createServer((req, res) => tasks.handle(req, res));
  await listen(tasksServer, options.tasksPort, options.host);

  /* eslint-disable @typescript-eslint/no-require-imports -- firebase-tools' own Hosting pieces, as its emulator uses them */
  const superstatic = require("superstatic") as { server: (options: Record<string, unknown>) => { listen: (cb: () => void) => http.Server } };
  const { proxyRequestHandler } = require("firebase-tools/lib/hosting/proxy") as { proxyRequestHandler: (url: string, label: string) => unknown };
  /* eslint-enable @typescript-eslint/no-require-imports -- the loads above only */
  const config = JSON.parse(readFileSync(path.join(ROOT, "firebase.json"), "utf8")).hosting as Record<string, unknown>;
  const hostingServer = await new Promise<http.Server>((resolve) => {
    const server = superstatic
      .server({
        debug: false,
        port: options.hostingPort,
        hostname: options.host,
        config,
        compression: true,
        cwd: ROOT,
        stack: "strict",
        rewriters: {
          function: (rewrite: { function: string | { functionId: string; region?: string } }) => {
            const id = typeof rewrite.function === "string" ? rewrite.function : rewrite.function.functionId;
            return Promise.resolve(proxyRequestHandler(functionUrl(id), `local Function ${REGION}/${id}`));
          },
        },
      })
      .listen(() => resolve(server));
  });

  return {
    async close() {
      tasks.stop();
      await Promise.all(
        [hostingServer, functionsServer, tasksServer].map(
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

// Run as the stack's child: `node --import tsx scripts/lib/serviceHost.ts` with SERVICE_HOST_OPTIONS (JSON).
if (require.main === module) {
  const options = JSON.parse(process.env.SERVICE_HOST_OPTIONS ?? "{}") as ServiceHostOptions;
  startServiceHost(options).then(
    () => console.log(`service host: hosting on ${options.host}:${options.hostingPort}, functions on :${options.functionsPort}, tasks on :${options.tasksPort}`),
    (error: unknown) => {
      console.error("service host failed to start:", error);
      process.exit(1);
    },
  );
}
