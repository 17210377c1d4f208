// Wiring only: each exported Cloud Function lazily loads the module that serves it, so a cold start
// pays only for what that function uses.
import { setGlobalOptions } from "firebase-functions/v2";
import { onRequest } from "firebase-functions/v2/https";
import type { Request, Response } from "express";
import { DEFAULT_REGION } from "./core/config";
import { secretsOf } from "./core/secrets";

setGlobalOptions({ region: DEFAULT_REGION, maxInstances: 100 });

type Handler = (req: Request, res: Response) => void | Promise<void>;

function lazy(load: () => Handler): Handler {
  let handler: Handler | undefined;
  return (req, res) => (handler ??= load())(req, res);
}

/**
 * `cors: false` on every function: the apps answer cross-origin requests themselves (http/cors.ts decides
 * per surface). Leaving the option out is not the same: the emulator then wraps every function in CORS
 * middleware that reflects any origin and answers preflight before the app runs.
 */
const PUBLIC = { invoker: "public", cors: false } as const;

/**
 * Functions that make designed codes get 2 vCPUs: a new code's SVG is decoded in a worker thread beside
 * its PNG (designs/svgCheck.ts), which halves the wait only with a second core (docs/performance.md).
 */
const DESIGNING = { cpu: 2 } as const;

export const site = onRequest({ ...PUBLIC }, lazy(() => require("./contract/surfaces").siteApp));
export const mcp = onRequest({ ...PUBLIC, ...DESIGNING, memory: "512MiB", secrets: secretsOf("mcp") }, lazy(() => require("./mcp/app").mcpApp));
export const consoleApi = onRequest({ ...PUBLIC, ...DESIGNING, secrets: secretsOf("consoleApi") }, lazy(() => require("./console/app").consoleApp));
// 1 GiB: print files (a 4096 px PNG, a large framed PDF's artwork) peak near 400 MB while drawn.
export const images = onRequest({ ...PUBLIC, ...DESIGNING, memory: "1GiB" }, lazy(() => require("./images/app").imagesApp));
export const bulk = onRequest({ ...PUBLIC, ...DESIGNING, memory: "512MiB", timeoutSeconds: 120, secrets: secretsOf("bulk") }, lazy(() => require("./bulk/app").bulkApp));
// 512 MiB: the geolocation databases (~63 MB IPv4, ~71 MB IPv6) are held in memory once loaded.
export const redirect = onRequest({ ...PUBLIC, memory: "512MiB", concurrency: 80, secrets: secretsOf("redirect") }, lazy(() => require("./redirect/app").redirectApp));
// The scan consumer (scans/consume.ts): Pub/Sub pushes the arrivals here. Always private (no setting opens
// it): the push subscription's service account is its only invoker, granted by deploy:scan-stream (docs/deploy.md).
export const scanConsumer = onRequest({ invoker: "private", cors: false, memory: "512MiB", concurrency: 250, timeoutSeconds: 60, secrets: secretsOf("scanConsumer") }, lazy(() => require("./redirect/scanConsumer").scanConsumerApp));
export const sandbox = onRequest({ ...PUBLIC, memory: "256MiB", secrets: secretsOf("sandbox") }, lazy(() => require("./sandbox/app").sandboxApp));
export const oauth = onRequest({ ...PUBLIC, memory: "256MiB", secrets: secretsOf("oauth") }, lazy(() => require("./oauth/app").oauthApp));
export const pages = onRequest({ ...PUBLIC, memory: "256MiB" }, lazy(() => require("./listings/app").pagesApp));
// GS1 Digital Link resolver (gs1/resolver.ts): one read per request; digital-link.js loads on its first GS1 URI.
export const gs1Resolver = onRequest({ ...PUBLIC, memory: "512MiB", concurrency: 80 }, lazy(() => require("./gs1/resolverApp").resolverApp));

// Loaded only where it can run (deploy analysis, the emulator, or its own instances), not by HTTP functions.
const target = process.env.FUNCTION_TARGET;
export const scanMaintenance = !target || target === "scanMaintenance" ? require("./scans/schedule").scanMaintenance : undefined;
export const destinationRecheck = !target || target === "destinationRecheck" ? require("./moderation/schedule").destinationRecheck : undefined;
export const domainChecks = !target || target === "domainChecks" ? require("./domains/schedule").domainChecks : undefined;
export const webhookDelivery = !target || target === "webhookDelivery" ? require("./webhooks/task").webhookDelivery : undefined;
export const catalogueJob = !target || target === "catalogueJob" ? require("./jobs/task").catalogueJob : undefined;
