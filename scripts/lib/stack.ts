// Starts and stops the local stack: the Firebase emulators behind a front end like production's.
//  - Emulators run under Node 22, the runtime functions deploy to: the bundled binary of the optional
//    `node-<os>-<cpu>` package where one exists for the platform, else a Node 22 on PATH.
//  - Firestore: "firebase" mode lets firebase-tools run every emulator (Java 21+, and internet the first
//    time); "gcloud" mode (Java 17, offline) has firebase-tools run the Google Cloud CLI's Firestore
//    emulator jar through scripts/lib/java-shim, so Firestore triggers fire as in production. Chosen
//    automatically; EMULATORS=firebase|gcloud overrides.
//  - The front (scripts/lib/front.ts) owns the public addresses and appends X-Forwarded-For hops.
//  - `npm start` keeps its state: emulator data is imported at start and exported on exit (STATE_DIR).
// Every child runs in its own process group, and every process below it is tracked while the stack runs,
// so that stopping kills the whole tree, java included (firebase-tools starts the Firestore emulator in a
// process group of its own, which survives firebase-tools when that dies early).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, readSync, existsSync, writeFileSync, fstatSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { createConnection } from "node:net";
import path from "node:path";
import { DEFAULT_REGION, LOCAL_FRONT_PORTS, LOCAL_PROJECT_ID } from "../../functions/src/core/constants";
import { hostingHop, servedByClaim, startFront, type RunningFront } from "./front";
import { ensureLocalCa } from "./localCa";
import { domainSettings } from "../../functions/src/core/config";
import { ensureLocalScanStream } from "./scanStream";
import { relayPushes, type PushRelay } from "./pushRelay";
import { SCAN_STREAM } from "../../functions/src/store/scanEvents";
import { SECRETS } from "../../functions/src/core/secrets";

export const ROOT = path.resolve(__dirname, "..", "..");
/** The Cloud Tasks emulator's port (firebase.json's `emulators.tasks`). */
const TASKS_PORT = (JSON.parse(readFileSync(path.join(ROOT, "firebase.json"), "utf8")) as { emulators: { tasks: { port: number } } }).emulators.tasks.port;
export const PROJECT_ID = LOCAL_PROJECT_ID;
const NODE_MAJOR = 22;
/** Pushes the service tier's relay keeps outstanding to its consumer: past the consumer's batch of 90, as a busy production push is. */
const SERVICE_PUSHES_OUTSTANDING = 200;

/**
 * Node 22, as in production (functions/package.json engines): the optional `node-<os>-<cpu>` package's
 * binary where npm installed one for this platform, else the first `node` on PATH if it is Node 22.
 * Undefined when neither exists (checkPrerequisites says what to install).
 */
function findNode22(): string | undefined {
  const bundled = path.join(ROOT, "node_modules", `node-${process.platform}-${process.arch}`, "bin", "node");
  if (existsSync(bundled)) return bundled;
  if (Number(process.versions.node.split(".")[0]) === NODE_MAJOR) return process.execPath;
  const host = spawnSync("node", ["-p", "process.versions.node.split('.')[0] + ' ' + process.execPath"], { encoding: "utf8" });
  const [major, execPath] = (host.stdout ?? "").trim().split(" ");
  return Number(major) === NODE_MAJOR && execPath ? execPath : undefined;
}

const FOUND_NODE22 = findNode22();
/** The Node 22 binary the emulators and Node-22-only tests run on ("node" if none was found). */
export const NODE22 = FOUND_NODE22 ?? "node";
export const LOG_DIR = path.join(ROOT, ".emulator-data");
/**
 * What `npm start` keeps across restarts (git-ignored): the emulators' data, exported on exit and imported
 * at the next start, and the demo key. SVC_STATE_DIR moves it (tests use their own, never the developer's).
 */
export const SAVED_DIR = process.env.SVC_STATE_DIR ? path.resolve(process.env.SVC_STATE_DIR) : path.join(LOG_DIR, "saved");
export const STATE_DIR = path.join(SAVED_DIR, "emulators");
export const DEMO_KEY_FILE = path.join(SAVED_DIR, "demo-key");
export const LOG_FILE = path.join(LOG_DIR, "emulators.log");

interface EmulatorPorts {
  hosting: number;
  functions: number;
  firestore: number;
  auth: number;
  storage: number;
  pubsub: number;
  hub: number;
  logging: number;
  ui: number;
}

/**
 * A test run may start a second stack beside the first (scripts/test.ts shards the service and browser
 * files over two): the same emulators and project on ports this much higher, with data of its own. The
 * ports stay below Linux's ephemeral range (32768 and up), so no outgoing connection can hold one.
 */
export const SHARD_PORT_OFFSET = 20_000;
export type Shard = 0 | 1;
const shifted = (port: number, shard: Shard) => port + shard * SHARD_PORT_OFFSET;

export function emulatorPorts(shard: Shard = 0): EmulatorPorts {
  const config = JSON.parse(readFileSync(path.join(ROOT, "firebase.json"), "utf8"));
  const e = config.emulators;
  const at = (port: number) => shifted(port, shard);
  return {
    hosting: at(e.hosting.port),
    functions: at(e.functions.port),
    firestore: at(e.firestore.port),
    auth: at(e.auth.port),
    storage: at(e.storage.port),
    pubsub: at(e.pubsub.port),
    hub: at(e.hub.port),
    logging: at(e.logging.port),
    ui: at(e.ui.port),
  };
}

/** The front's public ports (what a browser or client calls) of a stack. */
export const frontPorts = (shard: Shard = 0) => ({ site: shifted(LOCAL_FRONT_PORTS.site, shard), functions: shifted(LOCAL_FRONT_PORTS.functions, shard), domains: shifted(LOCAL_FRONT_PORTS.domains, shard) });

/** The local CA (scripts/lib/localCa.ts): kept with the saved state, so a browser that trusts it keeps trusting it. */
export const LOCAL_CA_DIR = path.join(SAVED_DIR, "local-ca");

/** The functions' log of a stack: shard 0's is the one `npm start` and `npm run logs` use. */
export const logFileOf = (shard: Shard = 0) => (shard ? path.join(LOG_DIR, `emulators-shard${shard}.log`) : LOG_FILE);

export interface StackInfo {
  mode: "firebase" | "gcloud";
  storageEmulator: boolean;
  ports: EmulatorPorts;
  env: Record<string, string>;
  logFile: string;
  /** `functionsDirect`: the functions' own port, behind the front (as Google's front end calls them). */
  urls: { base: string; app: string; mcp: string; console: string; functions: string; functionsDirect: string; emulatorUi?: string };
  /** Merchants' hosts: the front's HTTPS port, the CA certificate that signs its certificates, and the load balancer's own name. */
  domains: { port: number; caFile: string; defaultHost: string };
  /** Why the Emulator UI is off, when it was asked for. */
  uiOff?: string;
  /** Loopback address the stack's own clients use; tests connect from others to be other clients. */
  sourceAddress: string;
}

function javaMajorVersion(): number {
  const out = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (out.error) return 0;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${out.stderr}${out.stdout}`);
  if (!match) return 0;
  const major = Number(match[1]);
  return major === 1 ? Number(match[2]) : major;
}

let gcloudJar: { path?: string } | undefined;

/** The Google Cloud CLI's Firestore emulator jar, if the CLI and that component are installed. */
function gcloudFirestoreJar(): string | undefined {
  gcloudJar ??= { path: findGcloudFirestoreJar() };
  return gcloudJar.path;
}

let sdkRoot: { path?: string } | undefined;

/** The Google Cloud CLI's installation directory, if the CLI is installed. */
function gcloudSdkRoot(): string | undefined {
  sdkRoot ??= { path: findGcloudSdkRoot() };
  return sdkRoot.path;
}

function findGcloudSdkRoot(): string | undefined {
  const out = spawnSync("gcloud", ["info", "--format=value(installation.sdk_root)"], { encoding: "utf8", timeout: 60_000 });
  return out.error || out.status !== 0 ? undefined : out.stdout.trim() || undefined;
}

function findGcloudFirestoreJar(): string | undefined {
  const root = gcloudSdkRoot();
  const jar = root && path.join(root, "platform", "cloud-firestore-emulator", "cloud-firestore-emulator.jar");
  return jar && existsSync(jar) ? jar : undefined;
}

/**
 * The Google Cloud CLI's Pub/Sub emulator (its `pubsub-emulator` component), which firebase-tools runs in
 * place of the one it would download: so the scan stream's emulator runs offline too.
 */
export function gcloudPubSubEmulator(): string | undefined {
  const root = gcloudSdkRoot();
  const bin = root && path.join(root, "platform", "pubsub-emulator", "bin", "cloud-pubsub-emulator");
  return bin && existsSync(bin) ? bin : undefined;
}

/** The java binary the shim hands everything else to (the first `java` on PATH, resolved). */
function realJava(): string {
  const out = spawnSync("sh", ["-c", "readlink -f \"$(command -v java)\""], { encoding: "utf8" });
  return out.stdout.trim() || "java";
}

export function chooseMode(): "firebase" | "gcloud" {
  const forced = process.env.EMULATORS;
  if (forced === "firebase" || forced === "gcloud") return forced;
  if (javaMajorVersion() >= 21) return "firebase";
  if (gcloudFirestoreJar()) return "gcloud";
  throw new PrerequisiteError([FIRESTORE_MISSING]);
}

const FIRESTORE_MISSING =
  "Firestore emulator: firebase-tools needs Java 21+ to run it, and no Google Cloud CLI Firestore emulator was found. " +
  "Install Java 21 (macOS: `brew install openjdk@21`; Debian/Ubuntu: `apt install openjdk-21-jre-headless`), " +
  "or with Java 17: `gcloud components install cloud-firestore-emulator`.";

const PUBSUB_MISSING =
  "Pub/Sub emulator (the scan stream): not found in the Google Cloud CLI. Install it with `gcloud components install pubsub-emulator` " +
  "(or, with Java 21 and internet access, let firebase-tools download its own).";

/** One line per missing piece, each saying how to get it. */
export class PrerequisiteError extends Error {
  constructor(readonly problems: string[]) {
    super(`Missing before the stack can start:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/**
 * Checks what the stack needs before starting anything: Node 22, Java and a Firestore emulator, free
 * ports and (for tests) Chromium. Throws a PrerequisiteError listing every problem found.
 */
export async function checkPrerequisites(options: { chromium?: boolean; ui?: boolean; shard?: Shard } = {}): Promise<"firebase" | "gcloud"> {
  const problems: string[] = [];
  if (!FOUND_NODE22) {
    problems.push(
      `Node ${NODE_MAJOR}: the emulators run the functions on Node ${NODE_MAJOR}, as deployed. npm installs it on Linux (x64, arm64) and Intel macOS; ` +
        `elsewhere install Node ${NODE_MAJOR} (\`nvm install ${NODE_MAJOR}\`, \`brew install node@${NODE_MAJOR}\` or https://nodejs.org) and put it first on PATH.`,
    );
  }
  const java = javaMajorVersion();
  let mode: "firebase" | "gcloud" = "firebase";
  if (java === 0) problems.push("Java: not found on PATH. Install Java 21 (macOS: `brew install openjdk@21`; Debian/Ubuntu: `apt install openjdk-21-jre-headless`).");
  else {
    try {
      mode = chooseMode();
    } catch (error) {
      problems.push(...(error instanceof PrerequisiteError ? error.problems : [String(error)]));
    }
  }
  if (mode === "gcloud" && java !== 0 && !gcloudPubSubEmulator()) problems.push(PUBSUB_MISSING);
  const ports = emulatorPorts(options.shard);
  const front = frontPorts(options.shard);
  const wanted: [string, number][] = [
    ...Object.entries(ports).filter(([name]) => !(mode === "gcloud" && name === "storage") && (name !== "ui" || options.ui)),
    ["front site", front.site],
    ["front functions", front.functions],
    ["front domains (HTTPS)", front.domains],
  ];
  for (const [name, port] of wanted) {
    if (await portOpen(port)) problems.push(`Port ${port} (${name}) is in use: stop whatever listens there (an earlier stack? \`lsof -i :${port}\`) and retry.`);
  }
  if (options.chromium) {
    const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
    if (!existsSync(chromium)) problems.push(`Chromium: not found at ${chromium} (browser tests). Install it (\`apt install chromium\`) or set CHROMIUM_PATH to a Chromium or Chrome binary.`);
  }
  if (problems.length) throw new PrerequisiteError(problems);
  return mode;
}

/** The Emulator UI's files, once firebase-tools has downloaded them (it needs the internet for that). */
function emulatorUiAvailable(mode: "firebase" | "gcloud"): boolean {
  const cache = process.env.FIREBASE_EMULATORS_PATH ?? path.join(homedir(), ".cache", "firebase", "emulators");
  const cached = existsSync(cache) && readdirSync(cache).some((f) => f.startsWith("ui-v") && !f.endsWith(".zip"));
  return cached || mode === "firebase";
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, child?: ChildProcess, stillWanted: () => void = () => undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    stillWanted();
    if (child && child.exitCode !== null) throw new Error(`${what}: process exited with code ${child.exitCode}`);
    if (await check().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s`);
}

/**
 * The emulator reads secret params from functions/.secret.local (git-ignored) and would otherwise try
 * Secret Manager. Locally each secret (the sandbox's address-hash key, the webhook sealing key) is a random value made once per checkout.
 */
function writeLocalSecrets(): void {
  const file = path.join(ROOT, "functions", ".secret.local");
  const present = existsSync(file) ? readFileSync(file, "utf8") : "";
  const missing = Object.keys(SECRETS).filter((name) => !new RegExp(`^${name}=`, "m").test(present));
  if (missing.length) writeFileSync(file, present + missing.map((name) => `${name}=${randomBytes(24).toString("hex")}\n`).join(""), { mode: 0o600 });
}

export interface StartOptions {
  /** Import STATE_DIR at start and export into it on exit (`npm start`); tests start empty and keep nothing. */
  persist?: boolean;
  /** Run the Emulator UI where firebase-tools can (it downloads the UI once, so it needs the internet then). */
  ui?: boolean;
  /** Each start-up step as it completes, e.g. "Firestore emulator listening on :8080". */
  onStep?: (step: string) => void;
  /**
   * Who serves Hosting, the functions and Cloud Tasks: firebase-tools' emulators ("emulators", the default:
   * `npm start`, the stack tier) or one Node 22 process of ours on the same ports (scripts/lib/serviceHost.ts,
   * the service tier), with Auth, Firestore and Pub/Sub still firebase-tools' emulators.
   */
  functions?: "emulators" | "in-process";
  /** 1: a second stack beside the first, on ports SHARD_PORT_OFFSET higher, with its own data (tests only). */
  shard?: Shard;
}

export class Stack {
  private children: ChildProcess[] = [];
  /** Every process seen below our children (pid -> pgid), so none survives its parent's early death. */
  private seen = new Map<number, number>();
  private tracker?: NodeJS.Timeout;
  private front?: RunningFront;
  private relay?: PushRelay;
  private stopping?: Promise<void>;
  /** In the environment of every process the stack starts, so that even orphans can be found and ended. */
  private readonly marker = `SVC_STACK_RUN=${randomBytes(8).toString("hex")}`;
  private shard: Shard = 0;
  info!: StackInfo;

  /** Throws once stop() has begun, so an interrupted start() goes no further. */
  private stillStarting(): void {
    if (this.stopping) throw new StartInterrupted();
  }

  async start(options: StartOptions = {}): Promise<StackInfo> {
    const step = options.onStep ?? (() => undefined);
    const shard = options.shard ?? 0;
    this.shard = shard;
    const ports = emulatorPorts(shard);
    const mode = await checkPrerequisites({ ui: options.ui, shard });
    this.stillStarting();
    const publicPorts = frontPorts(shard);
    writeLocalSecrets();
    mkdirSync(LOG_DIR, { recursive: true });
    const logFile = logFileOf(shard);
    const log = openSync(logFile, "w");
    const host = "127.0.0.1";
    const env: Record<string, string> = {
      GCLOUD_PROJECT: PROJECT_ID,
      // The address the front appends as the Hosting hop (scripts/lib/front.ts); tests read it from here.
      FRONT_HOSTING_HOP: hostingHop(),
      // With saved state, the local image store's files are part of it (and go with `npm run reset`).
      LOCAL_IMAGE_DIR: options.persist ? path.join(SAVED_DIR, "images") : shard ? path.join(LOG_DIR, `local-images-shard${shard}`) : path.join(ROOT, ".local-images"),
      // As in deployed functions: the HTTP layer's own error pages (e.g. for unparseable JSON) carry no stack.
      NODE_ENV: "production",
      // Not on GCE: skip google-auth-library's metadata-server probe (a warning and a delay otherwise).
      METADATA_SERVER_DETECTION: "none",
      FIRESTORE_EMULATOR_HOST: `${host}:${ports.firestore}`,
      FIREBASE_AUTH_EMULATOR_HOST: `${host}:${ports.auth}`,
      PUBSUB_EMULATOR_HOST: `${host}:${ports.pubsub}`,
    };
    const storageEmulator = mode === "firebase";
    if (storageEmulator) env.FIREBASE_STORAGE_EMULATOR_HOST = `${host}:${ports.storage}`;
    if (shard) {
      // The functions' own addresses, which are the default ones' only for shard 0 (core/config.ts).
      const origins = [publicPorts.site, publicPorts.functions, ports.hosting, ports.functions].flatMap((port) => [`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
      env.BASE_URL = `http://${host}:${publicPorts.site}`;
      env.ALLOWED_HOSTS = origins.map((o) => o.slice("http://".length)).join(",");
      env.ALLOWED_ORIGINS = origins.join(",");
    }

    const [markerName, markerValue] = this.marker.split("=");
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, FIREBASE_CLI_DISABLE_UPDATE_CHECK: "true", [markerName]: markerValue };
    // firebase-tools runs Firestore and Pub/Sub and sets their hosts for the functions.
    delete childEnv.FIRESTORE_EMULATOR_HOST;
    delete childEnv.PUBSUB_EMULATOR_HOST;
    const pubsubBinary = gcloudPubSubEmulator();
    if (pubsubBinary) childEnv.PUBSUB_EMULATOR_BINARY_PATH = pubsubBinary;
    if (mode === "gcloud") {
      childEnv.FIRESTORE_EMULATOR_BINARY_PATH = gcloudFirestoreJar();
      childEnv.REAL_JAVA = realJava();
      childEnv.PATH = `${path.join(__dirname, "java-shim")}${path.delimiter}${process.env.PATH ?? ""}`;
    }
    const inProcess = options.functions === "in-process";
    const served = inProcess ? "" : "functions,hosting,tasks,";
    const only = mode === "gcloud" ? `auth,firestore,${served}pubsub` : `auth,firestore,${served}pubsub,storage`;
    const firebaseBin = path.join(ROOT, "node_modules", "firebase-tools", "lib", "bin", "firebase.js");
    const args = [firebaseBin, "emulators:start", "--project", PROJECT_ID, "--only", only];
    const ui = options.ui && emulatorUiAvailable(mode);
    if (ui) args.push("--config", writeConfigWithUi());
    if (shard) {
      args.push("--config", writeShardConfig(shard, ports, env));
      // firebase-tools notes its running hub in a file named by project under the temporary directory.
      childEnv.TMPDIR = path.join(LOG_DIR, `tmp-shard${shard}`);
      mkdirSync(childEnv.TMPDIR, { recursive: true });
    }
    if (options.persist) {
      mkdirSync(STATE_DIR, { recursive: true });
      if (existsSync(path.join(STATE_DIR, "firebase-export-metadata.json"))) {
        args.push("--import", STATE_DIR);
        step(`importing saved state from ${path.relative(ROOT, STATE_DIR)}`);
      }
      args.push("--export-on-exit", STATE_DIR);
    }
    // firebase-tools runs the functions on the Node that runs it: Node 22 here, as in production.
    const firebase = spawn(NODE22, args, { cwd: ROOT, detached: true, stdio: ["ignore", log, log], env: childEnv });
    closeSync(log);
    this.children.push(firebase);
    this.trackDescendants();
    step("firebase-tools started");

    const announce: [string, number][] = [
      ["Auth emulator", ports.auth],
      ["Firestore emulator", ports.firestore],
      ["Hosting emulator", ports.hosting],
      ["Functions emulator", ports.functions],
      ["Pub/Sub emulator", ports.pubsub],
      ...(storageEmulator ? ([["Storage emulator", ports.storage]] as [string, number][]) : []),
      ...(ui ? ([["Emulator UI", ports.ui]] as [string, number][]) : []),
    ];
    const watchPorts = setInterval(() => {
      for (const [i, [name, port]] of [...announce.entries()].reverse()) {
        void portOpen(port).then((open) => {
          if (open && announce[i]?.[1] === port) {
            announce.splice(i, 1);
            step(`${name} listening on :${port}`);
          }
        });
      }
    }, 300);
    const functionsLoaded = watchLog(logFile, /Loaded functions definitions from source: (.*)\./, (m) => step(`functions loaded: ${m[1]}`));
    const hostingDirect = `http://${host}:${ports.hosting}`;
    try {
      if (inProcess) {
        await waitFor("Firebase emulators", async () => (await Promise.all([ports.auth, ports.firestore, ports.pubsub].map(portOpen))).every(Boolean), 180_000, firebase, () => this.stillStarting());
        this.startServiceHost(env, childEnv, host, ports, logFile);
        step("functions and Hosting served in process (scripts/lib/serviceHost.ts)");
      }
      await waitFor("Firebase emulators", () => httpOk(`${hostingDirect}/api/status.json`), 180_000, firebase, () => this.stillStarting());
    } finally {
      clearInterval(watchPorts);
      functionsLoaded();
    }
    this.stillStarting();
    step("emulators ready (the site API answers through Hosting)");
    const consumerEndpoint = `http://${host}:${ports.functions}/${PROJECT_ID}/${DEFAULT_REGION}/scanConsumer`;
    await ensureLocalScanStream(env.PUBSUB_EMULATOR_HOST, PROJECT_ID, consumerEndpoint);
    step(`scan stream ready: topic ${SCAN_STREAM.topic} with schema ${SCAN_STREAM.schema} on the Pub/Sub emulator`);
    if (inProcess) {
      // The emulator's own push holds one message per loop (two loops) until it is answered: about 20
      // arrivals a second, where a flood of thousands outlasts its test. The service host's one consumer
      // instance is pushed as Pub/Sub pushes, many at once (scripts/lib/pushRelay.ts); the emulator keeps the
      // retry policy and dead letters. firebase-tools' Functions emulator (a worker process per request)
      // keeps the emulator's own push.
      this.relay = await relayPushes({ emulatorHost: env.PUBSUB_EMULATOR_HOST, project: PROJECT_ID, subscription: SCAN_STREAM.consumer, endpoint: consumerEndpoint, outstanding: SERVICE_PUSHES_OUTSTANDING });
      step(`pushes to scanConsumer relayed, up to ${SERVICE_PUSHES_OUTSTANDING} at once`);
    }
    const ca = ensureLocalCa(LOCAL_CA_DIR);
    // The functions' own domain settings (core/config.ts), so the front's name and address are the ones the records name.
    const balancer = domainSettings({ dnsServers: "", targetHost: process.env.DOMAIN_TARGET_HOST ?? "", apexAddresses: process.env.DOMAIN_APEX_ADDRESSES ?? "" }, { local: true, projectId: PROJECT_ID, urls: [] });
    this.front = await startFront({
      host,
      routes: [
        { listenPort: publicPorts.site, targetPort: ports.hosting, viaHosting: true },
        { listenPort: publicPorts.functions, targetPort: ports.functions, viaHosting: false },
        {
          listenPort: publicPorts.domains,
          targetPort: ports.functions,
          viaHosting: false,
          loadBalancer: { functionPath: `/${PROJECT_ID}/${DEFAULT_REGION}/redirect`, hop: balancer.apexAddresses[0], ca, defaultHost: balancer.targetHost, isServed: servedByClaim(env.FIRESTORE_EMULATOR_HOST, PROJECT_ID), refuseUnparsableHosts: !inProcess },
        },
      ],
      publicAddresses: process.env.FRONT_PUBLIC_ADDRESSES !== "0",
      hostingHop: env.FRONT_HOSTING_HOP,
    });
    if (this.stopping) await this.front.close();
    this.stillStarting();
    step(`front end listening on :${publicPorts.site} and :${publicPorts.functions}, merchants' hosts over HTTPS on :${publicPorts.domains} (local CA: ${path.relative(ROOT, ca.certFile)})`);
    const base = `http://${host}:${publicPorts.site}`;
    this.info = {
      mode,
      storageEmulator,
      ports,
      env,
      logFile,
      sourceAddress: host,
      domains: { port: publicPorts.domains, caFile: ca.certFile, defaultHost: balancer.targetHost },
      urls: {
        base,
        app: base,
        mcp: `${base}/api/mcp`,
        console: `${base}/console`,
        functions: `http://${host}:${publicPorts.functions}/${PROJECT_ID}/us-central1`,
        functionsDirect: `http://${host}:${ports.functions}/${PROJECT_ID}/us-central1`,
        ...(ui ? { emulatorUi: `http://${host}:${ports.ui}` } : {}),
      },
      ...(options.ui && !ui ? { uiOff: "off: firebase-tools downloads it on its first start with Java 21 and internet access" } : {}),
    };
    return this.info;
  }

  /** The service tier's Hosting, functions and Cloud Tasks: one Node 22 process on the emulators' ports. */
  private startServiceHost(env: Record<string, string>, childEnv: NodeJS.ProcessEnv, host: string, ports: EmulatorPorts, logFile: string): void {
    const log = openSync(logFile, "a");
    const options = { projectId: PROJECT_ID, host, hostingPort: ports.hosting, functionsPort: ports.functions, tasksPort: shifted(TASKS_PORT, this.shard) };
    const child = spawn(NODE22, ["--import", "tsx", path.join(__dirname, "serviceHost.ts")], {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", log, log],
      env: { ...childEnv, ...env, SERVICE_HOST_OPTIONS: JSON.stringify(options) },
    });
    closeSync(log);
    this.children.push(child);
  }

  /** Records the processes below our children now and every 250 ms while the stack runs. */
  private trackDescendants(): void {
    const scan = () => {
      for (const [pid, pgid] of descendantsOf(this.children.map((c) => c.pid!).filter(Boolean))) this.seen.set(pid, pgid);
    };
    scan();
    this.tracker = setInterval(scan, 250);
    this.tracker.unref();
  }

  /**
   * Ends every process this stack started: SIGINT first (firebase-tools then exports state and stops its
   * emulators), SIGKILL after a grace period to whatever is left, including processes whose parent died.
   * Safe to call more than once and at any moment of start().
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.front?.close();
      await this.relay?.stop();
      const roots = this.children.map((c) => c.pid!).filter(Boolean);
      for (const [pid, pgid] of descendantsOf(roots)) this.seen.set(pid, pgid);
      const alive = () => this.children.filter((c) => c.exitCode === null && c.signalCode === null);
      for (const child of alive().reverse()) signalGroup(child, "SIGINT");
      const deadline = Date.now() + 30_000;
      while (alive().length && Date.now() < deadline) {
        await sleep(200);
        for (const [pid, pgid] of descendantsOf(roots)) this.seen.set(pid, pgid);
      }
      clearInterval(this.tracker);
      for (const child of this.children) signalGroup(child, "SIGKILL");
      // Grandchildren in groups of their own (the Firestore emulator's java) and any left in ours.
      for (const [pid, pgid] of this.seen) {
        kill(-pgid, "SIGKILL");
        kill(pid, "SIGKILL");
      }
      // Processes started after the last look, whose parent is gone: found by the marker in their environment.
      for (let round = 0; round < 20; round++) {
        const marked = processesWithMarker(this.marker);
        if (!marked.length) break;
        for (const pid of marked) kill(pid, "SIGKILL");
        await sleep(100);
      }
      const all = [...Object.values(emulatorPorts(this.shard)), ...Object.values(frontPorts(this.shard))];
      const freeBy = Date.now() + 10_000;
      while (Date.now() < freeBy && (await Promise.all(all.map(portOpen))).some(Boolean) && this.children.length) await sleep(200);
    })();
    return this.stopping;
  }

  /**
   * Ctrl-C (once or more), SIGTERM or SIGHUP stop the stack and exit; later signals while it stops are
   * ignored, so a second Ctrl-C cannot cut the clean-up short. `onStopped` runs once everything has exited.
   */
  stopOnSignals(onStopping: () => void = () => undefined, exitCode = 130, onStopped: () => void = () => undefined): void {
    let stopping = false;
    const handler = () => {
      if (stopping) return;
      stopping = true;
      onStopping();
      void this.stop().then(() => {
        onStopped();
        process.exit(exitCode);
      });
    };
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, handler);
  }
}

/** Thrown by start() when stop() began while it was starting. */
export class StartInterrupted extends Error {
  constructor() {
    super("start-up interrupted");
  }
}

/** Pids of processes whose environment holds `marker` (`ps e` shows it on Linux and macOS). */
function processesWithMarker(marker: string): number[] {
  const out = spawnSync("ps", ["eww", "-A", "-o", "pid=,command="], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return (out.stdout ?? "")
    .split("\n")
    .filter((line) => line.includes(marker))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
    .filter((pid) => pid && pid !== process.pid);
}

/** Pids (with their process group) of every process below `roots`, from `ps` (Linux and macOS). */
function descendantsOf(roots: number[]): Map<number, number> {
  const found = new Map<number, number>();
  if (!roots.length) return found;
  const out = spawnSync("ps", ["-A", "-o", "pid=,ppid=,pgid="], { encoding: "utf8" });
  const rows = (out.stdout ?? "").trim().split("\n").map((line) => line.trim().split(/\s+/).map(Number));
  const wanted = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid, pgid] of rows) {
      if (wanted.has(ppid) && !wanted.has(pid)) {
        wanted.add(pid);
        found.set(pid, pgid);
        grew = true;
      }
    }
  }
  return found;
}

function kill(pid: number, signal: NodeJS.Signals): void {
  if (!pid || pid === -process.pid || Math.abs(pid) === process.pid || Math.abs(pid) <= 1) return;
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Calls `onMatch` once when a new line of `file` matches; returns a function that stops watching. */
function watchLog(file: string, pattern: RegExp, onMatch: (m: RegExpExecArray) => void): () => void {
  let offset = 0;
  let rest = "";
  const timer = setInterval(() => {
    if (!existsSync(file)) return;
    const fd = openSync(file, "r");
    try {
      const size = fstatSync(fd).size;
      if (size <= offset) return;
      const buffer = Buffer.alloc(size - offset);
      readSync(fd, buffer, 0, buffer.length, offset);
      offset = size;
      const lines = (rest + buffer.toString("utf8")).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        const m = pattern.exec(line);
        if (m) {
          clearInterval(timer);
          onMatch(m);
          return;
        }
      }
    } finally {
      closeSync(fd);
    }
  }, 300);
  return () => clearInterval(timer);
}

/** firebase.json with the Emulator UI on, beside it (paths in it are relative to its directory). */
/** firebase.json with a shard's emulator ports (git-ignored, beside it, so its relative paths still hold). */
function writeShardConfig(shard: Shard, ports: EmulatorPorts, env: Record<string, string>): string {
  const config = JSON.parse(readFileSync(path.join(ROOT, "firebase.json"), "utf8"));
  for (const [name, port] of Object.entries(ports)) config.emulators[name] = { ...config.emulators[name], port };
  config.emulators.tasks = { ...config.emulators.tasks, port: shifted(TASKS_PORT, shard) };
  // The Functions emulator gives functions/.env.local's values precedence over its own environment, and
  // that file leaves the addresses empty (the usual ports): this stack's functions read a copy of it with
  // this shard's addresses, from a folder named as the functions' `configDir`.
  const configDir = path.join(LOG_DIR, `functions-env-shard${shard}`);
  mkdirSync(configDir, { recursive: true });
  const lines = readFileSync(path.join(ROOT, "functions", ".env.local"), "utf8").split("\n");
  const withShard = lines.map((line) => {
    const name = line.split("=")[0];
    return name in env && ["BASE_URL", "ALLOWED_HOSTS", "ALLOWED_ORIGINS"].includes(name) ? `${name}=${env[name]}` : line;
  });
  writeFileSync(path.join(configDir, ".env.local"), withShard.join("\n"));
  config.functions = (config.functions as Array<Record<string, unknown>>).map((f) => ({ ...f, configDir: path.relative(ROOT, configDir) }));
  const file = path.join(ROOT, `firebase.shard${shard}.json`);
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

function writeConfigWithUi(): string {
  const config = JSON.parse(readFileSync(path.join(ROOT, "firebase.json"), "utf8"));
  config.emulators.ui = { ...config.emulators.ui, enabled: true };
  const file = path.join(ROOT, "firebase.start.json");
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

export function tailOf(file: string, lines = 60): string {
  if (!existsSync(file)) return "";
  return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
}
