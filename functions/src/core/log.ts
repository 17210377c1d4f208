// Structured logs, one named function per event, so handlers read cleanly and nothing secret is logged.
// Each security event carries `event` (a stable name to filter on in Cloud Logging) and only non-secret
// fields: never a credential, a token or a hash of one; key prefixes and ids are fine.
import { logger } from "firebase-functions";

/** A log event's stable name: `area.what_happened`, filtered on in Cloud Logging. */
export type LogEvent = `${string}.${string}`;

/** A failure the caller recovers from (the request goes on), logged with its error and causes. */
export function logError(event: LogEvent, message: string, error: unknown, fields: Record<string, unknown> = {}): void {
  logger.error(message, { event, ...fields, error: describeError(error) });
}

/** A request answered with a 5xx: the line support finds from the requestId the caller quotes. */
export function logServerError(facts: { surface: string; requestId: string; code: string; path?: string }, error: unknown): void {
  logger.error(`${facts.surface}: ${facts.code} (request ${facts.requestId})`, { event: "request.failed", ...facts, error: describeError(error) });
}

/** The error and its causes (an AppError's cause holds the internal detail its answer leaves out). */
function describeError(error: unknown): unknown {
  if (!(error instanceof Error)) return String(error);
  return { message: error.message, stack: error.stack, ...(error.cause === undefined ? {} : { cause: describeError(error.cause) }) };
}

export function logWarn(event: LogEvent, message: string, fields: Record<string, unknown> = {}): void {
  logger.warn(message, { event, ...fields });
}

export function logInfo(event: LogEvent, message: string, fields: Record<string, unknown> = {}): void {
  logger.info(message, { event, ...fields });
}

/** What a surface knows about the request when it logs a security event. */
export interface RequestFacts {
  surface: string;
  path?: string;
  /** The client's address as the service derives it (core/clientAddress.ts), not a header value. */
  client?: string;
}

export function logAuthenticationFailed(facts: RequestFacts & { reason: string; credential: string }): void {
  logger.warn("authentication failed", { event: "auth.failed", ...facts });
}

export function logRateLimited(facts: RequestFacts & { limit: string; subject: string; max: number; windowSeconds: number }): void {
  logger.warn("rate limited", { event: "rate.limited", ...facts });
}

/** `via: "cli"` marks keys minted or revoked with the admin CLI (scripts/admin.ts), not the console. */
export function logKeyMinted(facts: { merchantId: string; keyId: string; prefix: string; uid: string; scopes: readonly string[]; via?: "console" | "cli" }): void {
  logger.info("api key minted", { event: "key.minted", ...facts });
}

export function logKeyRevoked(facts: { merchantId: string; keyId: string; prefix: string; byUid: string; via?: "console" | "cli" }): void {
  logger.info("api key revoked", { event: "key.revoked", ...facts });
}

export function logSandboxClaimed(facts: { sandboxId: string; merchantId: string; codeId: string; uid: string }): void {
  logger.info("sandbox code claimed", { event: "sandbox.claimed", ...facts });
}

/** A moderator's decision on a phone book listing; no contact data. */
export interface ListingDecision {
  domain: string;
  merchantId: string;
  /** True when the decision was about a pending change of an already approved listing. */
  change: boolean;
  /** uid of the moderator. */
  by: string;
}

export function logListingApproved(facts: ListingDecision): void {
  logger.info(`listing approved: ${facts.domain}`, { event: "listing.approved", ...facts });
}

export function logListingRejected(facts: ListingDecision & { reason: string }): void {
  logger.info(`listing rejected: ${facts.domain}`, { event: "listing.rejected", ...facts });
}

export function logSessionStarted(facts: { uid: string }): void {
  logger.info("console session started", { event: "session.started", ...facts });
}

export function logSessionEnded(facts: { uid: string }): void {
  logger.info("console session ended", { event: "session.ended", ...facts });
}

/**
 * The client address resolved to a Google or known proxy address: no visitor could be told apart, so
 * per-address limits fall back to the shared proxy bucket. Hops are the trusted proxies walked past.
 */
export function logClientIsProxy(facts: { client: string; hops: string[]; path?: string }): void {
  logger.warn("client address is a proxy's", { event: "client.proxy", ...facts });
}

/** The token endpoint refused a grant because its person's account was disabled, deleted or signed out everywhere. */
export function logOAuthGrantRefused(facts: { grantId: string; clientId: string; uid: string; reason: string }): void {
  logger.warn("oauth grant refused", { event: "oauth.grant_refused", ...facts });
}

/**
 * A grant revoked, and why: one of its codes or refresh tokens presented again (possible theft), the client
 * revoking it (RFC 7009), the person in the console, or the person leaving the workspace.
 */
export function logOAuthGrantRevoked(facts: { grantId: string; reason: string; clientId?: string; uid?: string; merchantId?: string }): void {
  logger.warn("oauth grant revoked", { event: "oauth.grant_revoked", ...facts });
}

/**
 * The token or revocation endpoint refused a request (invalid_grant, invalid_client, invalid_request...):
 * the OAuth error and its description, the client_id and grant type as sent; never a code or a token.
 */
export function logOAuthFailed(facts: RequestFacts & { error: string; description: string; status: number; clientId?: string; grantType?: string }): void {
  logger.warn("oauth request refused", { event: "oauth.failed", ...facts });
}

/** A consent decision from a browser other than the one that started the authorization request. */
export function logOAuthForeignBrowser(facts: { requestId: string; clientId: string; uid: string }): void {
  logger.warn("oauth request decided from another browser", { event: "oauth.foreign_browser", ...facts });
}

/** A webhook endpoint that failed for a run of attempts was disabled and its workspace's owner mailed. */
export function logWebhookDisabled(facts: { merchantId: string; webhookId: string; failingSince: string }): void {
  logger.warn("webhook endpoint disabled", { event: "webhook.disabled", ...facts });
}

/** A webhook target refused (not https, not port 443, or not a public address); the URL's host only. */
export function logWebhookTargetRefused(facts: { merchantId: string; host: string; reason: string }): void {
  logger.warn("webhook target refused", { event: "webhook.target_refused", ...facts });
}

/** A webhook signing secret was made or rotated (never the secret). */
export function logWebhookSecretIssued(facts: { merchantId: string; webhookId: string; uid: string; rotated: boolean }): void {
  logger.info("webhook secret issued", { event: "webhook.secret_issued", ...facts });
}

/** A scan could not be recorded (its workspace's documents refused the write); the redirect still answered. */
export function logScanNotRecorded(facts: { merchantId: string; codeId: string; scanId?: string }, error: unknown): void {
  logger.error("scan not recorded", { event: "scan.not_recorded", ...facts, error: describeError(error) });
}

/** The maintenance job could not fold a rollup's shards; it skipped that rollup and went on with the rest. */
export function logRollupFoldSkipped(facts: { merchantId: string; rollup: string }, error: unknown): void {
  logger.error("rollup fold skipped", { event: "scan.fold_skipped", ...facts, error: describeError(error) });
}

/** A webhook stopped because its creator left, was disabled, or its creating key or grant was revoked. */
export function logWebhookCreatorGone(facts: { merchantId: string; webhookId: string; reason: string }): void {
  logger.warn("webhook disabled: its creator no longer stands", { event: "webhook.creator_gone", ...facts });
}

/** A scan event could not be published to the stream before its deadline or at all; the redirect still answered. */
export function logScanNotStreamed(facts: { scanId: string; merchantId: string; pending: boolean }, error?: unknown): void {
  logger.error("scan not streamed", { event: "scan.not_streamed", ...facts, ...(error === undefined ? {} : { error: describeError(error) }) });
}

/** A task function was sent a payload without this service's seal: dropped before anything ran. */
export function logTaskSealRefused(facts: { function: string; queue: string | undefined; taskId: string | undefined }): void {
  logger.warn(`task refused: no valid seal (${facts.function})`, { event: "task.seal_refused", ...facts });
}

export function logAbuseReported(facts: { reportId: string; uniqueQRCodeID: string; merchantId: string; reason: string }): void {
  logger.warn(`abuse reported: ${facts.uniqueQRCodeID} (${facts.reason})`, { event: "abuse.reported", ...facts });
}

export function logCodeTakenDown(facts: { uniqueQRCodeID: string; merchantId: string; codeId: string; by: string; reason: string; reportId: string | null }): void {
  logger.warn(`code taken down: ${facts.uniqueQRCodeID}`, { event: "abuse.takedown", ...facts });
}

/** An operator moved a GS1 key to another workspace (gs1/reassign.ts); the previous owner's items of the key were deleted. */
export function logGs1KeyReassigned(facts: { host: string; ai: string; value: string; from: string; to: string; by: string; itemsRemoved: number }): void {
  logger.warn(`GS1 key reassigned: ${facts.ai}/${facts.value}`, { event: "gs1.key_reassigned", ...facts });
}

export function logCodeRestored(facts: { uniqueQRCodeID: string; merchantId: string; codeId: string; by: string }): void {
  logger.info(`code restored: ${facts.uniqueQRCodeID}`, { event: "abuse.restored", ...facts });
}

export function logDestinationBlocked(facts: { merchantId: string | null; host: string; source: string; threat: string }): void {
  logger.warn(`destination blocked: ${facts.host}`, { event: "abuse.destination_blocked", ...facts });
}

/** An MCP task created by a tools/call (mcp/tasks.ts): the job's or fixture's id, never its arguments. */
export function logTaskCreated(facts: { merchantId: string; taskId: string; tool: string }): void {
  logger.info("mcp task created", { event: "mcp.task.created", ...facts });
}

export function logTaskCancelled(facts: { merchantId: string; taskId: string }): void {
  logger.info("mcp task cancelled", { event: "mcp.task.cancelled", ...facts });
}
