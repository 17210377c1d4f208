// Lazily initialised Admin SDK handles. Locally (emulator or demo- project) a missing emulator host is an
// immediate error: without it the client would try production and hang until the function timeout.
import { sep } from "node:path";
import type { App } from "firebase-admin/app";
import type { Firestore } from "firebase-admin/firestore";
import type { Auth } from "firebase-admin/auth";
import { AppError } from "./errors";
import { isLocal, projectId, storageBucketName } from "./config";
import { firestoreAuthClient, type FirestoreAuthClient, type RequestSigner } from "./firestoreTransport";
import { rememberResolution } from "./requireResolution";

let app: App | undefined;
let firestore: Firestore | undefined;

export function adminApp(): App {
  if (app) return app;
  const { getApps, initializeApp } = require("firebase-admin/app") as typeof import("firebase-admin/app");
  // Deployed functions get projectId and storageBucket from FIREBASE_CONFIG; elsewhere they are derived.
  app = getApps()[0] ?? (process.env.FIREBASE_CONFIG ? initializeApp() : initializeApp({ projectId: projectId(), storageBucket: storageBucketName() }));
  return app;
}

function requireEmulator(envVar: "FIRESTORE_EMULATOR_HOST" | "FIREBASE_AUTH_EMULATOR_HOST", service: string): void {
  if (isLocal() && !process.env[envVar]) {
    throw new AppError("UNAVAILABLE", `${service} is not reachable from this server`, {
      hint: "Start the local stack with `npm start`.",
      cause: new Error(`${envVar} is unset`),
    });
  }
}

/**
 * What signs the Firestore client's requests: locally (FIRESTORE_EMULATOR_HOST set) the emulators' admin
 * token, deployed the application default credentials with Firestore's scopes (what the client would build
 * itself without an auth client of ours).
 */
function firestoreSigner(): RequestSigner {
  const { GoogleAuth, OAuth2Client } = require("google-auth-library") as typeof import("google-auth-library");
  if (!process.env.FIRESTORE_EMULATOR_HOST) return new GoogleAuth({ scopes: ["https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/datastore"] });
  const client = new OAuth2Client();
  client.setCredentials({ access_token: "owner", expiry_date: Date.now() + 10 * 365 * 86_400_000 });
  return client;
}

let firestoreHttpClient: { client: FirestoreAuthClient; emulated: boolean } | undefined;

/** Firestore's one HTTP leg: the client's (db()) and the direct REST calls' (core/firestoreRest.ts). */
export function firestoreHttp(): FirestoreAuthClient {
  if (firestoreHttpClient) return firestoreHttpClient.client;
  requireEmulator("FIRESTORE_EMULATOR_HOST", "Firestore");
  firestoreHttpClient = { client: firestoreAuthClient(firestoreSigner()), emulated: Boolean(process.env.FIRESTORE_EMULATOR_HOST) };
  return firestoreHttpClient.client;
}

/**
 * Where Firestore's REST API answers: the emulator locally, Google's endpoint deployed. It must be whom the
 * requests are signed for (firestoreHttp): the emulator's token never goes to Google, nor real credentials to
 * an emulator named after the first request.
 */
export function firestoreRestOrigin(): string {
  const emulator = process.env.FIRESTORE_EMULATOR_HOST;
  if (firestoreHttpClient && firestoreHttpClient.emulated !== Boolean(emulator)) {
    throw new AppError("UNAVAILABLE", "Firestore is not reachable from this server", { cause: new Error("FIRESTORE_EMULATOR_HOST changed after the first Firestore request") });
  }
  if (emulator) return `http://${emulator}`;
  requireEmulator("FIRESTORE_EMULATOR_HOST", "Firestore");
  return "https://firestore.googleapis.com";
}

export function db(): Firestore {
  // The handle first: every store call asks for it, and the check below only matters before it exists.
  if (firestore) return firestore;
  requireEmulator("FIRESTORE_EMULATOR_HOST", "Firestore");
  // The SDK opens a tracing span around every operation unless told not to. Nothing here registers an
  // OpenTelemetry provider, so those spans went nowhere and cost about 1% of a busy tool server's CPU; an
  // operator who installs one can set FIRESTORE_ENABLE_TRACING=on.
  process.env.FIRESTORE_ENABLE_TRACING ??= "off";
  const { initializeFirestore } = require("firebase-admin/firestore") as typeof import("firebase-admin/firestore");
  // REST transport, in production and on the emulator alike, so tests and benchmarks run the data path
  // production runs (and no gRPC stack loads on cold start). Its HTTP leg is ours (core/firestoreTransport.ts),
  // signed by the emulator's admin token "owner" locally and by the default credentials deployed.
  firestore = initializeFirestore(adminApp(), { preferRest: true });
  boundCommitRetries();
  // Settings beyond preferRest reach the client only through settings(), which may be called once.
  firestore.settings({ clientConfig: boundedCalls(), authClient: firestoreHttp() } as FirebaseFirestore.Settings);
  // Each commit's retry options come from a require inside the client's createCallOptions: made a lookup.
  for (const file of Object.keys(require.cache)) {
    if (file.endsWith(FIRESTORE_CLIENT_INDEX)) rememberResolution(file, "google-gax/fallback");
  }
  return firestore;
}

const FIRESTORE_CLIENT_INDEX = ["", "@google-cloud", "firestore", "build", "src", "index.js"].join(sep);

/**
 * The longest a commit (a batch, a create, a transaction's commit) keeps being sent: the SDK re-sends a
 * commit by itself on ABORTED, RESOURCE_EXHAUSTED and UNAVAILABLE, by default for up to 600 s. A scan's
 * commit must be over, one way or the other, well inside a cap lease's grace (store/campaignCaps.ts
 * LEASE_GRACE_MS: after it other instances count the lease's spent allowances as final), and one stuck
 * commit must not hold an instance's scans for minutes (docs/decisions.md, "A scan commit's retries").
 */
export const COMMIT_RETRY_BUDGET_MS = 15_000;
/** One attempt of a commit is abandoned after this (the SDK's default: 60 s). */
export const COMMIT_ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * The commit's retry settings, bounded (COMMIT_RETRY_BUDGET_MS), in the client config's terms: the SDK's
 * first delay and growth, its delay capped at 2 s instead of 60 s so attempts keep coming within the budget.
 */
const BOUNDED_COMMIT = {
  initial_retry_delay_millis: 100,
  retry_delay_multiplier: 1.3,
  max_retry_delay_millis: 2_000,
  initial_rpc_timeout_millis: COMMIT_ATTEMPT_TIMEOUT_MS,
  rpc_timeout_multiplier: 1,
  max_rpc_timeout_millis: COMMIT_ATTEMPT_TIMEOUT_MS,
  total_timeout_millis: COMMIT_RETRY_BUDGET_MS,
};

/**
 * The client's own call settings for a commit, bounded like a batch's: runTransaction's commit is sent with
 * them, not with the batch's (by default 60 s of re-sends per attempt of the transaction, and up to 5
 * attempts). Passed as the Firestore client's `clientConfig` (db()). Reads are not bounded here: the SDK
 * reads over a REST stream, which takes no timeout (a read Firestore never answers stays open), so each
 * caller that must answer bounds its own wait (redirect/app.ts, scans/timeZones.ts).
 */
function boundedCalls(): object {
  return {
    interfaces: {
      "google.firestore.v1.Firestore": {
        retry_params: { boundedCommit: BOUNDED_COMMIT },
        methods: {
          // A call's timeout_millis is its whole time, re-sends included (and each attempt's, at most).
          Commit: { timeout_millis: COMMIT_RETRY_BUDGET_MS, retry_params_name: "boundedCommit" },
        },
      },
    },
  };
}

/**
 * Bounds the SDK's own retries of a batch's commit (COMMIT_RETRY_BUDGET_MS). WriteBatch.commit() takes no
 * call options and passes retry settings of its own, built from one shared object per method, which this
 * changes in place (a transaction's commit takes the client's settings instead: boundedCalls). The object
 * lives in the SDK's util module, outside its package exports, so it is loaded by file from the copy
 * firebase-admin uses. If a future SDK moves it, this throws at the first db() rather than leaving commits
 * unbounded without a word.
 */
function boundCommitRetries(): void {
  const { createRequire } = require("node:module") as typeof import("node:module");
  const path = require("node:path") as typeof import("node:path");
  const sdk = createRequire(require.resolve("firebase-admin/firestore")).resolve("@google-cloud/firestore");
  const util = require(path.join(path.dirname(sdk), "util.js")) as { getRetryParams?: (method: string) => Record<string, number> };
  const params = util.getRetryParams?.("commit");
  if (!params || typeof params.totalTimeoutMillis !== "number") throw new Error("the Firestore SDK's commit retry settings were not found: commits would retry for 600 s");
  params.totalTimeoutMillis = BOUNDED_COMMIT.total_timeout_millis;
  params.initialRpcTimeoutMillis = BOUNDED_COMMIT.initial_rpc_timeout_millis;
  params.maxRpcTimeoutMillis = BOUNDED_COMMIT.max_rpc_timeout_millis;
  params.maxRetryDelayMillis = BOUNDED_COMMIT.max_retry_delay_millis;
}

export function auth(): Auth {
  requireEmulator("FIREBASE_AUTH_EMULATOR_HOST", "Auth");
  const { getAuth } = require("firebase-admin/auth") as typeof import("firebase-admin/auth");
  return getAuth(adminApp());
}

/** Resolves with the promise's value, or rejects with UNAVAILABLE after `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError("UNAVAILABLE", `${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
