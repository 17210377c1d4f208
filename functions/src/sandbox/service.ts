// The keyless sandbox: one real, scannable code per call, limited per client address per UTC day,
// expiring after 7 days unless claimed into an account. No HTTP here.
import { getConfig, isLocal } from "../core/config";
import { secretValue } from "../core/secrets";
import { db } from "../core/firebase";
import { AppError } from "../core/errors";
import { SANDBOX_DAILY_LIMIT, SANDBOX_LIFETIME_DAYS } from "../core/limits";
import { renderPlainPng } from "../qr/render";
import { dayKey } from "../scans/classify";
import { titleFromUrl } from "../codes/fields";
import { publicCode } from "../codes/model";
import { prepareCodes, settleFailedCommit } from "../codes/service";
import { assertDestinationAllowed } from "../abuse/service";
import { addNewCodes } from "../store/codes";
import { ensureWorkspaceForOwner } from "../store/workspaces";
import {
  claimBlocker,
  counterId,
  createWithinQuota,
  findByClaimToken,
  hashClaimToken,
  markClaimed,
  newClaimToken,
  newSandboxId,
  readQuota,
  sandboxQuotaError,
  type Quota,
  type SandboxColours,
} from "../store/sandbox";
import { limitSubjectOf, type ResolvedClient } from "../core/clientAddress";

const DAY_MS = 86_400_000;

/** Colours only (no logo, no stored design): drawn and decoded like any design; loaded only when asked for. */
async function renderSandboxColours(url: string, colours: { foreground?: string; background?: string }): Promise<{ png: Buffer; colours: SandboxColours }> {
  const { colourDesign, renderDesignedFiles } = require("../designs/design") as typeof import("../designs/design");
  const design = colourDesign(colours);
  return { png: (await renderDesignedFiles(url, design, null)).png, colours: { foreground: design.foreground, background: design.background } };
}

export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS);
}

function claimLink(token: string): string {
  return `${getConfig().createUrl}?claim=${encodeURIComponent(token)}`;
}

/**
 * Clients resolved to a Google or proxy address (no visitor could be told apart) share a bucket per /24
 * (IPv4) or /48 (IPv6), generous because it stands for many people (docs/decisions.md, "The client address").
 */
const SANDBOX_SHARED_PROXY_DAILY_LIMIT = 300;

/** The caller's daily limit: its own, or the shared one for a client resolved to a proxy address. */
export function sandboxLimitFor(client: Pick<ResolvedClient, "viaProxy">): number {
  return client.viaProxy ? SANDBOX_SHARED_PROXY_DAILY_LIMIT : SANDBOX_DAILY_LIMIT;
}

function counterFor(client: ResolvedClient, now: Date): string {
  return counterId(limitSubjectOf(client), dayKey(now), sandboxSalt());
}

/**
 * Keyed hashing of addresses, so counters cannot be reversed by brute force over the address space. The
 * key is a Secret Manager secret in production (docs/deploy.md); deployed without one, the function
 * refuses to count rather than fall back to a guessable key.
 */
function sandboxSalt(): string {
  const salt = secretValue("SANDBOX_IP_SALT");
  if (salt) return salt;
  if (isLocal()) return `svc-sandbox:${getConfig().projectId}`;
  // The answer names no setting; the log line (found by the answer's requestId) says which one is missing.
  throw new AppError("UNAVAILABLE", "The sandbox is not available right now", {
    hint: "Retry later, or use the bulk endpoint with an API key.",
    cause: new Error("SANDBOX_IP_SALT secret is not set for the sandbox function"),
  });
}

const subjectNameOf = (client: Pick<ResolvedClient, "viaProxy">) => (client.viaProxy ? "proxy address (shared by everyone behind it)" : "IP address");

export function quotaFor(client: ResolvedClient, now = new Date()): Promise<Quota> {
  return readQuota(counterFor(client, now), sandboxLimitFor(client), nextUtcMidnight(now));
}

export async function generateSandboxCode(url: string, client: ResolvedClient, now = new Date(), colours?: { foreground?: string; background?: string }, options: { safeBrowsingStandIn?: string } = {}) {
  // The quota is read first: a caller with none left costs no lookup (the project's shared Safe Browsing
  // quota) and no render. Then check and render before taking quota: a blocklisted destination, a payload
  // that cannot render, or colours that do not scan, must not use up a code. A lookup that cannot answer
  // refuses here (UNAVAILABLE): the sandbox is anonymous, so nothing could be taken down later.
  const counter = counterFor(client, now);
  const before = await readQuota(counter, sandboxLimitFor(client), nextUtcMidnight(now));
  if (before.used >= before.limit) throw sandboxQuotaError(before.limit, subjectNameOf(client), before.resetAt);
  await assertDestinationAllowed(url, { failClosed: true, safeBrowsingStandIn: options.safeBrowsingStandIn }, now);
  const { png, colours: kept } = colours ? await renderSandboxColours(url, colours) : { png: renderPlainPng(url), colours: null };
  const claimToken = newClaimToken();
  const id = newSandboxId();
  const expiresAt = new Date(now.getTime() + SANDBOX_LIFETIME_DAYS * DAY_MS);
  const record = { id, destinationUrl: url, colours: kept, claimTokenHash: hashClaimToken(claimToken), createdAt: now, expiresAt, originalExpiresAt: expiresAt };
  const quota = await createWithinQuota(counter, sandboxLimitFor(client), nextUtcMidnight(now), record, subjectNameOf(client));
  const c = getConfig();
  return {
    quota,
    body: {
      ok: true as const,
      code: {
        id,
        destinationUrl: url,
        qrImage: `data:image/png;base64,${png.toString("base64")}`,
        claimToken,
        expiresAt: expiresAt.toISOString(),
      },
      upgrade: {
        signup: c.createUrl,
        claim: claimLink(claimToken),
        claimHow: "Sign in to the console with the claim link (or POST the claimToken to /api/console/claims) to keep this code forever in your workspace.",
        bulk: `${c.appUrl}/api/bulk-qr-codes`,
        getApiKey: `${c.createUrl} (Settings, API keys, New API key)`,
        docs: c.docsUrl,
        limits: `${SANDBOX_DAILY_LIMIT} sandbox codes per IP per UTC day; sandbox codes expire after ${SANDBOX_LIFETIME_DAYS} days unless claimed.`,
      },
    },
  };
}

/**
 * Claims a sandbox code into the user's workspace (created if the user has none): a permanent static
 * account code with the same destination, the same colours, and a hosted PNG. The image is prepared first; the code, its
 * link and the claim mark are written in one transaction that re-checks the token, so a token claims once.
 */
export async function claimSandboxCode(user: { uid: string; email?: string }, claimToken: string, now = new Date()) {
  // Pre-check outside the transaction so a bad token renders and stores nothing; the transaction re-checks.
  const sandbox = await findByClaimToken(claimToken);
  const blocker = claimBlocker(sandbox, now);
  if (blocker || !sandbox) throw blocker;
  const { workspace } = await ensureWorkspaceForOwner(user.uid, `${user.email?.split("@")[0] ?? "My"} workspace`);
  const [code] = await prepareCodes(workspace.merchantId, [{ title: titleFromUrl(sandbox.destinationUrl), destinationUrl: sandbox.destinationUrl, ...(sandbox.colours ? { design: sandbox.colours } : {}) }], "sandbox-claim");
  try {
    await db().runTransaction(async (tx) => {
      const current = await findByClaimToken(claimToken, tx);
      const problem = claimBlocker(current, now);
      if (problem) throw problem;
      addNewCodes(tx, workspace.merchantId, [code]);
      markClaimed(tx, current!.id, { uid: user.uid, merchantId: workspace.merchantId, codeId: code.codeId }, now);
    });
  } catch (error) {
    if ((await settleFailedCommit(workspace.merchantId, [code], error)) !== "written") throw error;
  }
  return { ok: true as const, sandboxId: sandbox.id, merchantId: workspace.merchantId, code: publicCode(code) };
}
