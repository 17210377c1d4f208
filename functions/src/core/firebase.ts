// Lazily initialised Admin SDK handles. Locally (emulator or demo- project) a missing emulator host is an
// immediate error: without it the client would try production and hang until the function timeout.
import type { App } from "firebase-admin/app";
import type { Firestore } from "firebase-admin/firestore";
import type { Auth } from "firebase-admin/auth";
import { AppError } from "./errors";
import { isLocal, projectId, storageBucketName } from "./config";

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

/** An auth client presenting the emulators' admin token: local use only (FIRESTORE_EMULATOR_HOST set). */
function emulatorAuthClient(): unknown {
  const { OAuth2Client } = require("google-auth-library") as typeof import("google-auth-library");
  const client = new OAuth2Client();
  client.setCredentials({ access_token: "owner", expiry_date: Date.now() + 10 * 365 * 86_400_000 });
  return client;
}

export function db(): Firestore {
  requireEmulator("FIRESTORE_EMULATOR_HOST", "Firestore");
  if (firestore) return firestore;
  const { initializeFirestore } = require("firebase-admin/firestore") as typeof import("firebase-admin/firestore");
  // REST transport, in production and on the emulator alike, so tests and benchmarks run the data path
  // production runs (and no gRPC stack loads on cold start). The emulator takes the admin token "owner";
  // without a client that presents it, the REST client would look for Google credentials and fail.
  firestore = initializeFirestore(adminApp(), { preferRest: true });
  if (process.env.FIRESTORE_EMULATOR_HOST) firestore.settings({ authClient: emulatorAuthClient() } as FirebaseFirestore.Settings);
  return firestore;
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
