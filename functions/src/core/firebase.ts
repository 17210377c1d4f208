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
  // eslint-disable-next-line @typescript-eslint/no-require-imports
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

export function db(): Firestore {
  requireEmulator("FIRESTORE_EMULATOR_HOST", "Firestore");
  if (firestore) return firestore;
  const { initializeFirestore } = require("firebase-admin/firestore") as typeof import("firebase-admin/firestore");
  // REST transport in production: no gRPC stack to load on cold start. The REST client cannot talk to
  // the emulator without credentials, so locally the default (gRPC) transport is used.
  firestore = initializeFirestore(adminApp(), process.env.FIRESTORE_EMULATOR_HOST ? {} : { preferRest: true });
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
