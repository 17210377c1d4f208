// Ops CLI: `npm run admin -- <command> [options]`. Against the local emulators by default (demo project);
// with `--project <id>` of a real project it uses application default credentials
// (`gcloud auth application-default login`).
import "./lib/cliStderrLogs";
import { createConnection } from "node:net";
import { parseArgs } from "node:util";
import { LOCAL_PORTS, LOCAL_PROJECT_ID } from "../functions/src/core/config";
import { RATE_LIMIT_NAMES } from "../functions/src/core/rateLimit";

const USAGE = `usage: npm run admin -- <command> [options]

commands:
  create-merchant --email <owner email> [--name <workspace name>] [--merchant-id <id>] [--password <pw>]
  add-member      --merchant <id> --email <email> [--role member|owner] [--password <pw>]
  set-password    --email <email> --password <pw>   (local emulators only: console sign-in at /console)
  remove-member   --merchant <id> --email <email>   (their API keys stop working at once)
  mint-key        --merchant <id> --email <email of owner or member> --scopes <a,b,...> [--name <label>]
  list-keys       --merchant <id>
  revoke-key      --merchant <id> --key <keyId or sk-svc- display prefix>
  list-listings   [--status pending|approved|rejected]
  approve-listing --domain <domain>
  reject-listing  --domain <domain> [--reason <text>]
  sync-phone-book (writes the public phoneBook entry of every approved listing: run once after upgrading)
  set-admin       --email <email>   (grants the admin custom claim: console moderation)
  list-reports    [--status open|takenDown|dismissed]   (abuse reports from /report, newest first)
  report-groups   [--status open|takenDown|dismissed] [--cursor <the previous page's next>]   (reports grouped
                  by the code or GS1 item reported, a page at a time)
  takedown        --code <any address the service answers: /qr/ URL, scan id, /01/<GTIN>..., a compressed GS1
                  URI, gs1_<itemId>> --reason <text>   (scans get a warning page at once; the owner is mailed)
  restore         --code <the same kinds of address>   (undoes a takedown)
  backfill-report-subjects   (gives reports filed before grouping their subject, so report-groups shows them;
                  run once after upgrading; safe to run again)
  set-rate-limit  --merchant <id> --limit <${RATE_LIMIT_NAMES.join("|")}> --max <n per window | default>
                  [--per workspace]  (the workspace's aggregate over all its keys and grants; default: each credential)
  set-time-zone   --merchant <id> --tz <IANA name, e.g. America/Los_Angeles | UTC>   (days and hours of scan analytics)
  gs1-reassign    --key <GTIN | /AI/value of a GS1 key> --to <merchantId> --company-prefix <claimant's GS1 company prefix>
                  [--reason <text>]   (after checking the claimant's prefix with GS1: the key must begin with it;
                  the previous owner's items of the key, every lot and serial, are deleted; audited in both workspaces)
  gs1-approve-prefix --company-prefix <prefix> --to <merchantId | none> [--reason <text>]   (after checking the
                  prefix with GS1: only that workspace may claim new keys under it on the shared host, unlimited;
                  --to none withdraws it; keys already claimed keep their owners: gs1-reassign moves those)
  scan-maintenance (folds the rollup shards, destroys expired daily secrets; every 10 minutes when deployed)
  scan-consumer   (the scan consumer's lag and instances, and its dead letters, peeked: left unacknowledged)
                  [--replay]  (publishes the dead letters to scan-arrivals again, each acknowledged once
                  published: run it once their cause is repaired; docs/scan-stream.md, "Reconciliation")

options:
  --project <id>  Firebase project (default ${LOCAL_PROJECT_ID}: the local emulators)
  --json          machine-readable output`;

/**
 * Runs one command with `argv` (the words after `npm run admin --`), printing its output through `print`.
 * The command line runs it as a process; tests that need an operator's action as a fixture call it in
 * process (test/helpers/admin.ts), and test/service/admin-cli.test.ts runs the process itself.
 */
export async function runAdmin(argv: string[], print: (text: string) => void = (text) => console.log(text)): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      project: { type: "string", default: LOCAL_PROJECT_ID },
      email: { type: "string" },
      name: { type: "string" },
      "merchant-id": { type: "string" },
      merchant: { type: "string" },
      role: { type: "string", default: "member" },
      limit: { type: "string" },
      max: { type: "string" },
      per: { type: "string", default: "credential" },
      scopes: { type: "string" },
      tz: { type: "string" },
      to: { type: "string" },
      "company-prefix": { type: "string" },
      key: { type: "string" },
      domain: { type: "string" },
      code: { type: "string" },
      cursor: { type: "string" },
      status: { type: "string", default: "pending" },
      reason: { type: "string", default: "" },
      password: { type: "string" },
      json: { type: "boolean", default: false },
      replay: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const command = positionals[0];
  if (values.help || command === "help") {
    print(USAGE);
    return;
  }
  if (!command) throw new UsageError(`a command is needed\n\n${USAGE}`);
  process.env.GCLOUD_PROJECT = values.project;
  const local = values.project!.startsWith("demo-");
  if (local) {
    process.env.FIRESTORE_EMULATOR_HOST ??= `127.0.0.1:${LOCAL_PORTS.firestore}`;
    process.env.FIREBASE_AUTH_EMULATOR_HOST ??= `127.0.0.1:${LOCAL_PORTS.auth}`;
    process.env.PUBSUB_EMULATOR_HOST ??= "127.0.0.1:8085"; // firebase.json emulators.pubsub
    // Not on Google Cloud: without this, google-auth-library probes the metadata server and warns.
    process.env.METADATA_SERVER_DETECTION ??= "none";
    await requireEmulators();
  }
  // Imported after the environment is set: the Admin SDK reads it on first use.
  const { getAuth } = await import("firebase-admin/auth");
  const { adminApp } = await import("../functions/src/core/firebase");
  const workspaces = await import("../functions/src/store/workspaces");
  const keys = await import("../functions/src/store/apiKeys");
  const { mintApiKey } = await import("../functions/src/auth/apiKeys");
  const { SCOPES, ScopeSchema } = await import("../functions/src/auth/scopes");
  const { logKeyMinted, logKeyRevoked } = await import("../functions/src/core/log");
  const out = (human: string, data: unknown) => print(values.json ? JSON.stringify(data, null, 2) : human);
  const need = (name: keyof typeof values): string => {
    const v = values[name];
    if (typeof v !== "string" || !v) throw new UsageError(`--${name} is required for ${command}\n\n${USAGE}`);
    return v;
  };
  const localPassword = (): string | undefined => {
    if (values.password === undefined) return undefined;
    if (!local) throw new UsageError("--password: passwords are set only on the local emulators; people sign in to a deployed console with their own account");
    if (values.password.length < 6) throw new UsageError("--password: at least 6 characters (Firebase Auth's minimum)");
    return values.password;
  };
  const userByEmail = async (email: string, create: boolean) => {
    const auth = getAuth(adminApp());
    const password = localPassword();
    try {
      const user = await auth.getUserByEmail(email);
      return password ? await auth.updateUser(user.uid, { password }) : user;
    } catch (e) {
      // Only "no such user" means that; anything else (a malformed email, Auth unreachable) is reported as it is.
      if ((e as { code?: string }).code !== "auth/user-not-found") throw authError(e);
      if (!create) throw new UsageError(`--email: no user with email ${email}`);
      return auth.createUser({ email, ...(password ? { password } : {}) }).catch((error: unknown) => {
        throw authError(error);
      });
    }
  };
  const signInNote = () => (local && values.password ? `; console sign-in: ${values.email} with the given password` : "");

  switch (command) {
    case "create-merchant": {
      const user = await userByEmail(need("email"), true);
      const { workspace, created } = await workspaces.ensureWorkspaceForOwner(user.uid, values.name ?? `${user.email} workspace`, values["merchant-id"]);
      out(`${created ? "created" : "exists:"} merchant ${workspace.merchantId} (${workspace.name}), owner ${user.email} (${user.uid})${signInNote()}`, { created, workspace, ownerUid: user.uid });
      break;
    }
    case "add-member": {
      const role = values.role === "owner" ? "owner" : "member";
      const user = await userByEmail(need("email"), true);
      const membership = await workspaces.addMember(need("merchant"), user.uid, role);
      out(`${user.email} (${user.uid}) is now ${role} of ${membership.merchantId}${signInNote()}`, membership);
      break;
    }
    case "set-password": {
      need("password");
      const user = await userByEmail(need("email"), false);
      out(`${user.email} can now sign in to the local console with that password`, { uid: user.uid });
      break;
    }
    case "remove-member": {
      const user = await userByEmail(need("email"), false);
      await workspaces.removeMember(need("merchant"), user.uid);
      out(`${user.email} (${user.uid}) left ${values.merchant}; their keys no longer work`, { uid: user.uid, merchantId: values.merchant });
      break;
    }
    case "set-rate-limit": {
      const { writeRateLimitOverride } = await import("../functions/src/store/rateLimits");
      const name = need("limit");
      if (!(RATE_LIMIT_NAMES as string[]).includes(name)) throw new Error(`--limit must be one of ${RATE_LIMIT_NAMES.join(", ")}`);
      const max = need("max") === "default" ? null : Number(need("max"));
      if (max !== null && !(Number.isInteger(max) && max > 0)) throw new Error("--max must be a positive integer or default");
      const per = values.per;
      if (per !== "credential" && per !== "workspace") throw new Error("--per must be credential or workspace");
      await writeRateLimitOverride(need("merchant"), name, max, per);
      const whose = per === "workspace" ? " for the whole workspace" : " per credential";
      out(`${values.merchant}: ${name}${whose} ${max === null ? "back to the default" : `at most ${max} per window`} (instances pick it up within 30 s)`, { merchantId: values.merchant, limit: name, max, per });
      break;
    }
    case "set-time-zone": {
      const { isTimeZone } = await import("../functions/src/scans/localTime");
      const tz = need("tz");
      if (!isTimeZone(tz)) throw new Error(`--tz must be an IANA time zone name such as America/Los_Angeles or UTC, not "${tz}"`);
      await workspaces.setWorkspaceTimeZone(need("merchant"), tz);
      out(`${values.merchant}: scan analytics now count days and hours in ${tz} (new scans; instances pick it up within a minute)`, { merchantId: values.merchant, timeZone: tz });
      break;
    }
    case "gs1-reassign": {
      const { reassignKey } = await import("../functions/src/gs1/reassign");
      const done = await reassignKey({ key: need("key"), to: need("to"), companyPrefix: need("company-prefix"), by: "admin-cli", reason: values.reason });
      out(`${done.ai === "01" ? "GTIN" : `key (AI ${done.ai})`} ${done.value} on ${done.host} now belongs to ${done.to} (was ${done.from}); removed ${done.itemsRemoved} item(s) of ${done.from}: ${done.removed.map((i) => i.path).join(", ") || "none"}${done.removed.length < done.itemsRemoved ? ", ..." : ""}`, done);
      break;
    }
    case "gs1-approve-prefix": {
      const { approvePrefix } = await import("../functions/src/gs1/prefixVerify");
      const to = need("to");
      const done = await approvePrefix({ companyPrefix: need("company-prefix"), to: to === "none" ? null : to, by: "admin-cli", reason: values.reason });
      out(`GS1 company prefix ${done.companyPrefix} on ${done.host}: ${done.to ? `approved for ${done.to}` : "approval withdrawn"} (was ${done.from ?? "nobody"})`, done);
      break;
    }
    case "scan-maintenance": {
      const { runScanMaintenance } = await import("../functions/src/scans/maintenance");
      const result = await runScanMaintenance();
      out(`destroyed ${result.secretsDestroyed} expired daily secrets; folded ${result.shardsFolded} rollup shards into ${result.rollupsFolded} rollups (${result.rollupsSkipped} skipped)`, result);
      break;
    }
    case "scan-consumer": {
      if (values.replay) {
        const { replayDeadLetters } = await import("./lib/scanReplay");
        const replay = await replayDeadLetters(values.project!);
        const done = `replayed ${replay.replayed} dead letter(s) to the arrivals topic`;
        // A failed publish is an error (exit status 1): what was replayed is said with it.
        if (replay.failed) throw new Error(`${done}; ${replay.failed} not replayed, still in the dead letters: ${replay.error}`);
        out(done, replay);
        break;
      }
      const { scanConsumerStatus } = await import("./lib/scanConsumerStatus");
      const status = await scanConsumerStatus(values.project!);
      const dead = status.deadLetters;
      const lines = [
        `lag ${status.lagSeconds} s${status.pending ? " (figures catching up)" : ""}; ${status.instances.length} instance(s) seen in the last 10 minutes`,
        ...status.instances.map((i) => `  ${i.instance}: watermark ${i.watermark}, ${i.inFlight} held, lag ${i.lagSeconds} s, beat ${i.beatAt}`),
        `dead letters: ${dead.count}${dead.more ? " or more" : ""}${dead.oldest ? `; oldest published ${dead.oldest.publishTime}${dead.oldest.scanId ? ` (scan ${dead.oldest.scanId})` : ""}` : ""}`,
      ];
      out(lines.join("\n"), status);
      break;
    }
    case "mint-key": {
      const merchantId = need("merchant");
      const user = await userByEmail(need("email"), false);
      const membership = await workspaces.getMembership(user.uid);
      if (membership?.merchantId !== merchantId) throw new Error(`${user.email} is not a member of ${merchantId}`);
      const scopes = need("scopes") === "all" ? [...SCOPES] : need("scopes").split(",").map((s) => {
        const scope = ScopeSchema.safeParse(s.trim());
        if (!scope.success) throw new UsageError(`--scopes: "${s.trim()}" is not a scope; use all or some of ${SCOPES.join(",")}`);
        return scope.data;
      });
      const { key, record } = await mintApiKey({ merchantId, uid: user.uid, name: values.name ?? "CLI key", scopes });
      logKeyMinted({ merchantId, keyId: record.keyId, prefix: record.prefix, uid: user.uid, scopes: record.scopes, via: "cli" });
      out(`key (shown once, store it now):\n${key}\nkeyId ${record.keyId}, scopes ${record.scopes.join(",")}`, { key, keyId: record.keyId, prefix: record.prefix, scopes: record.scopes });
      break;
    }
    case "list-keys": {
      const list = await keys.listApiKeys(need("merchant"));
      const rows = list.map((k) => ({ keyId: k.keyId, prefix: k.prefix, name: k.name, scopes: k.scopes, uid: k.uid, createdAt: k.createdAt, lastUsedAt: k.lastUsedAt, revokedAt: k.revokedAt }));
      out(
        rows.length
          ? rows.map((r) => `${r.keyId}  ${r.prefix}…  ${r.revokedAt ? "REVOKED" : "active "}  ${r.scopes.join(",")}  last used ${r.lastUsedAt?.toISOString() ?? "never"}  ${r.name}`).join("\n")
          : "no keys",
        rows,
      );
      break;
    }
    case "revoke-key": {
      const record = await keys.revokeApiKey(need("merchant"), need("key"));
      logKeyRevoked({ merchantId: record.merchantId, keyId: record.keyId, prefix: record.prefix, byUid: "cli", via: "cli" });
      out(`revoked ${record.keyId} (${record.prefix}…) at ${record.revokedAt?.toISOString()}`, { keyId: record.keyId, revokedAt: record.revokedAt });
      break;
    }
    case "list-listings": {
      const { listListings } = await import("../functions/src/store/listings");
      const { publicListing } = await import("../functions/src/listings/service");
      const status = values.status as "pending" | "approved" | "rejected";
      const rows = (await listListings(status)).map(publicListing);
      out(rows.length ? rows.map((l) => `${l.domain}  ${l.status}  ${l.businessName}  ${l.voiceAgentPhone}  ${l.email}${l.pendingChange ? "  (change pending)" : ""}`).join("\n") : `no ${status} listings`, rows);
      break;
    }
    case "approve-listing": {
      const { approveListing } = await import("../functions/src/listings/service");
      const listing = await approveListing(need("domain"));
      out(`approved ${listing.domain}: ${listing.page} (confirmation queued to ${listing.email})`, listing);
      break;
    }
    case "reject-listing": {
      const { rejectListing } = await import("../functions/src/listings/service");
      const listing = await rejectListing(need("domain"), values.reason);
      out(`rejected ${listing.domain}`, listing);
      break;
    }
    case "list-reports": {
      const { publicReport, reportsIn } = await import("../functions/src/abuse/service");
      const status = values.status === "pending" ? "open" : values.status;
      if (status !== "open" && status !== "takenDown" && status !== "dismissed") throw new UsageError("--status is open, takenDown or dismissed");
      const reports = (await reportsIn(status)).map(publicReport);
      out(reports.map((r) => `${r.reportId}  ${r.createdAt}  ${r.url ?? r.subject}  ${r.reason}  ${r.destinationUrl}`).join("\n") || `no ${status} reports`, reports);
      break;
    }
    case "report-groups": {
      const { reportGroups } = await import("../functions/src/moderation/service");
      const status = values.status === "pending" ? "open" : values.status;
      if (status !== "open" && status !== "takenDown" && status !== "dismissed") throw new UsageError("--status is open, takenDown or dismissed");
      const page = await reportGroups(status, values.cursor);
      const lines = page.groups.map((g) => `${g.subject}  ${g.count} report(s)  ${Object.entries(g.reasons).map(([r, n]) => `${r}×${n}`).join(" ")}  ${g.url ?? ""}  ${g.destinationUrl}`);
      out([...lines, ...(page.nextCursor ? [`next page: --cursor ${page.nextCursor}`] : [])].join("\n") || `no ${status} reports`, page);
      break;
    }
    case "takedown": {
      if (!values.reason) throw new UsageError("--reason is needed: the owner is shown it");
      const { takeDown } = await import("../functions/src/moderation/service");
      const done = await takeDown(need("code"), values.reason, "admin-cli");
      out(`took down ${done.url}: its scans show the warning page from now on`, done);
      break;
    }
    case "restore": {
      const { restore } = await import("../functions/src/moderation/service");
      const done = await restore(need("code"), "admin-cli");
      out(`restored ${done.uniqueQRCodeID ?? done.subject}: its scans redirect again`, done);
      break;
    }
    case "backfill-report-subjects": {
      const { backfillReportSubjects } = await import("../functions/src/store/abuse");
      const done = await backfillReportSubjects();
      out(`read ${done.read} reports, gave ${done.updated} of them their subject`, done);
      break;
    }
    case "sync-phone-book": {
      const { listListings } = await import("../functions/src/store/listings");
      const { putPhoneBookEntry } = await import("../functions/src/store/phoneBook");
      const { pageUrl } = await import("../functions/src/listings/service");
      const { db } = await import("../functions/src/core/firebase");
      const approved = await listListings("approved", { limit: 10_000 });
      for (const l of approved) {
        await db().runTransaction(async (tx) => putPhoneBookEntry(tx, { domain: l.domain, businessName: l.businessName, voiceAgentPhone: l.voiceAgentPhone, page: pageUrl(l.domain) }));
      }
      out(`wrote ${approved.length} phone book entries`, { count: approved.length });
      break;
    }
    case "set-admin": {
      const user = await userByEmail(need("email"), false);
      await getAuth(adminApp()).setCustomUserClaims(user.uid, { ...(user.customClaims ?? {}), admin: true });
      out(`${user.email} is now an admin (takes effect at the next ID token refresh)`, { uid: user.uid, admin: true });
      break;
    }
    default:
      throw new UsageError(`unknown command ${command}\n\n${USAGE}`);
  }
}

/** A mistake in the command line: reported as it is, exit status 2. */
class UsageError extends Error {}

/** An Auth failure reported as what it is (its code and Auth's own message). */
function authError(error: unknown): Error {
  const { code, message } = error as { code?: string; message?: string };
  return new Error(`Firebase Auth refused: ${message ?? String(error)}${code ? ` (${code})` : ""}`);
}

/** Fails within seconds, with what to do, when nothing listens where the emulators should be. */
async function requireEmulators(): Promise<void> {
  for (const [name, hostPort] of [["Firestore", process.env.FIRESTORE_EMULATOR_HOST!], ["Auth", process.env.FIREBASE_AUTH_EMULATOR_HOST!]]) {
    if (!(await listening(hostPort, 2000))) {
      throw new Error(`The ${name} emulator is not running (nothing answers at ${hostPort}). Start the local stack with \`npm start\` in another terminal, or pass --project <id> to act on a real project.`);
    }
  }
}

function listening(hostPort: string, timeoutMs: number): Promise<boolean> {
  const at = hostPort.lastIndexOf(":");
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostPort.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(hostPort.slice(at + 1)) });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** zod issues as one line per field; anything else as its message. */
function describeFailure(error: unknown): string {
  const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
  if (error instanceof Error && error.name === "ZodError" && issues) return issues.map((i) => `${i.path.map(String).join(".") || "input"}: ${i.message}`).join("\n");
  if (error instanceof Error && error.name === "AppError") {
    const details = (error as { details?: { issues?: { path: string; message: string }[] } }).details;
    if (details?.issues?.length) return details.issues.map((i) => `${i.path || "input"}: ${i.message}`).join("\n");
    const hint = (error as { hint?: string }).hint;
    if (hint) return `${error.message}\n${hint}`;
  }
  return error instanceof Error ? error.message : String(error);
}

if (require.main === module) {
  runAdmin(process.argv.slice(2)).then(
    () => process.exit(process.exitCode ?? 0),
    (error: unknown) => {
      console.error(describeFailure(error));
      process.exit(error instanceof UsageError ? 2 : 1);
    },
  );
}
