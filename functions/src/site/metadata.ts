// Builds the site metadata bodies from configuration. No HTTP here.
import { getConfig, SERVICE_NAME, SITE_API_VERSION } from "../core/config";
import { db, withTimeout } from "../core/firebase";
import { logError } from "../core/log";
import { AppError } from "../core/errors";
import type { ApiCatalog, SiteMetadata, Status } from "./schemas";

const DESCRIPTION =
  "Merchant QR codes for people and AI agents: static and dynamic (tracked) codes, a keyless sandbox, bulk generation, an MCP tool server and a voice-agent phone book.";

export function apiCatalog(): ApiCatalog {
  const c = getConfig();
  return {
    name: SERVICE_NAME,
    description: DESCRIPTION,
    version: SITE_API_VERSION,
    links: {
      catalog: `${c.baseUrl}/api`,
      site: `${c.baseUrl}/api/site.json`,
      status: `${c.baseUrl}/api/status.json`,
      openapi: `${c.baseUrl}/api/openapi.json`,
      mcp: c.mcpFunctionUrl,
      mcpManifest: `${c.appUrl}/api/mcp`,
      sandboxGenerator: `${c.appUrl}/api/generate-qr-code`,
      bulkGenerator: `${c.appUrl}/api/bulk-qr-codes`,
      docs: c.docsUrl,
      phoneBook: `${c.baseUrl}/phone-book`,
      console: c.createUrl,
    },
  };
}

export function siteMetadata(): SiteMetadata {
  const c = getConfig();
  return {
    name: SERVICE_NAME,
    description: DESCRIPTION,
    version: SITE_API_VERSION,
    urls: {
      site: c.baseUrl,
      app: c.appUrl,
      console: c.createUrl,
      docs: c.docsUrl,
      phoneBook: `${c.baseUrl}/phone-book`,
      dynamicLinks: `${c.dynamicLinkUrl}/qr/`,
      mcp: c.mcpFunctionUrl,
    },
    contact: { email: c.contactEmail },
  };
}

const FIRESTORE_CHECK_TIMEOUT_MS = 3000;

/** A real health check: one Firestore read, bounded in time. */
export async function serviceStatus(): Promise<Status> {
  const started = performance.now();
  let ok = true;
  let error: string | undefined;
  try {
    await withTimeout(db().collection("health").doc("probe").get(), FIRESTORE_CHECK_TIMEOUT_MS, "Firestore");
  } catch (e) {
    // The public answer names the failure only by kind; the details go to the log.
    ok = false;
    error = e instanceof AppError && e.code === "UNAVAILABLE" ? "timeout" : "unavailable";
    logError("site.status_check_failed", "status check failed", e);
  }
  return {
    status: ok ? "ok" : "degraded",
    version: SITE_API_VERSION,
    time: new Date().toISOString(),
    checks: {
      firestore: { ok, latencyMs: Math.round(performance.now() - started), ...(error ? { error } : {}) },
    },
  };
}
