// The service tier's stand-in for the Hosting and Functions emulators: one Node 22 process that serves the
// built functions (functions/lib) the way the platform does, without a worker process per request.
//  - Hosting: superstatic, the engine the Hosting emulator itself runs, configured from firebase.json's
//    `hosting` section (rewrites in order, static files from hosting/, cleanUrls, headers). A function
//    rewrite goes through firebase-tools' own Hosting proxy handler (the same headers, cookie filtering and
//    timeout as the emulator), to the functions server below.
//  - Functions: every exported function at /<project>/<region>/<name>[/path], the path mapped as the
//    Functions emulator maps it, served by an instance of its own: a worker thread with its own modules
//    (FUNCTION_TARGET set, as deployed), behind the body parsers the emulator's runtime uses (json, text,
//    urlencoded, raw; 32mb; rawBody kept), with `trust proxy` on. One instance answers a function's
//    concurrent requests, as a deployed instance with `concurrency` above one does.
//  - Cloud Tasks: the queue API firebase-admin calls when CLOUD_TASKS_EMULATOR_HOST is set, dispatching
//    each task to its function with the function's own retry configuration (task-queue.ts).
// What only the real emulators prove (platform quirks, separate instances per request) stays in the stack
// tier, which runs the same suite files through firebase-tools.
import http from "node:http";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
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

/**
 * One function's instance: a worker thread of its own (its own modules, so its own caches and memory, as a
 * deployed function's instances share nothing with another function's), with FUNCTION_TARGET set as the
 * platform sets it, serving the function behind the emulator runtime's parsers on a port of its own.
 */
async function serveFunctionInThisThread(name: string): Promise<number> {
  process.env.FUNCTION_TARGET = name;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded after the environment is set, as the emulator loads them */
  const express = require("express") as typeof import("express");
  const bodyParser = require("body-parser") as typeof import("body-parser");
  const fn = (require(path.join(ROOT, "functions", "lib", "index.js")) as Record<string, HttpFunction | undefined>)[name];
  /* eslint-enable @typescript-eslint/no-require-imports -- the loads above only */
  if (typeof fn !== "function") throw new Error(`functions/lib/index.js exports no function ${name}`);
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
  app.use((req, res) => {
    Promise.resolve()
      .then(() => fn(req, res))
      .catch((error: unknown) => {
        console.error(`function ${name} threw:`, error);
        if (!res.headersSent) res.status(500).send(error instanceof Error ? error.message : String(error));
        else res.end();
      });
  });
  const server = http.createServer(app);
  // The forwarder below keeps its sockets to this server alive. Closing an idle one first (Node's 5 s
  // default) races a request sent on it: an ECONNRESET the forwarder can only answer with a 502, which the
  // fuzz saw about once a run on a loaded machine. The front (front.ts) outlives its clients' sockets too.
  server.keepAliveTimeout = 620_000;
  return listen(server, 0, "127.0.0.1");
}

function startFunctionWorker(name: string): Promise<{ port: number; worker: Worker }> {
  const worker = new Worker(__filename, { workerData: { functionName: name }, execArgv: [...process.execArgv] });
  return new Promise((resolve, reject) => {
    worker.once("message", (message: { port?: number; error?: string }) => {
      if (message.port) resolve({ port: message.port, worker });
      else reject(new Error(`function ${name} did not start: ${message.error}`));
    });
    worker.once("error", reject);
  });
}

export async function startServiceHost(options: ServiceHostOptions): Promise<RunningServiceHost> {
  Object.assign(process.env, functionEnvironment(options));
  // This thread reads only the functions' declarations (names, task queues' retry configuration); each
  // function runs in a worker of its own.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the environment above is set
  const exported = require(path.join(ROOT, "functions", "lib", "index.js")) as Record<string, HttpFunction | undefined>;
  const functions = new Map<string, HttpFunction>();
  for (const [name, fn] of Object.entries(exported)) if (typeof fn === "function") functions.set(name, fn);
  const instances = new Map(await Promise.all([...functions.keys()].map(async (name) => [name, await startFunctionWorker(name)] as const)));

  // The function URLs, /<project>/<region>/<name>[/path], mapped as the Functions emulator maps them and
  // forwarded to the function's instance.
  const prefix = new RegExp(`^/${options.projectId}/([^/]+)/([^/?]+)/?`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const functionsServer = http.createServer((req, res) => {
    const match = prefix.exec(req.url ?? "");
    const instance = match && instances.get(match[2]);
    if (!match || !instance) {
      res.writeHead(404, { "Content-Type": "text/plain" });
      res.end(`Function ${match?.[2] ?? req.url} does not exist, valid functions are: ${[...instances.keys()].join(", ")}`);
      return;
    }
    const upstream = http.request(
      { host: "127.0.0.1", port: instance.port, method: req.method, path: (req.url ?? "/").replace(prefix, "/"), headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" });
      res.end(`function ${match[2]}: its instance did not answer`);
    });
    req.pipe(upstream);
  });
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
      agent.destroy();
      await Promise.all(
        [hostingServer, functionsServer, tasksServer].map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
      await Promise.all([...instances.values()].map(({ worker }) => worker.terminate()));
    },
  };
}

// Run as the stack's child: `node --import tsx scripts/lib/serviceHost.ts` with SERVICE_HOST_OPTIONS (JSON).
if (!isMainThread && (workerData as { functionName?: string } | null)?.functionName) {
  const name = (workerData as { functionName: string }).functionName;
  serveFunctionInThisThread(name).then(
    (port) => parentPort!.postMessage({ port }),
    (error: unknown) => parentPort!.postMessage({ error: error instanceof Error ? error.stack : String(error) }),
  );
} else if (require.main === module) {
  const options = JSON.parse(process.env.SERVICE_HOST_OPTIONS ?? "{}") as ServiceHostOptions;
  startServiceHost(options).then(
    () => console.log(`service host: hosting on ${options.host}:${options.hostingPort}, functions on :${options.functionsPort}, tasks on :${options.tasksPort}`),
    (error: unknown) => {
      console.error("service host failed to start:", error);
      process.exit(1);
    },
  );
}
