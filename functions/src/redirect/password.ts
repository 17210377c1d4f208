// The password page's POST (docs/campaign-rules.md, "The password page"): POST /qr/<id> with the form's
// `password`. Checked in this order, each with its own page and nothing of the destination in any of them:
// sent from this service's own page (Host and a present Origin among the service's, an Origin required:
// browsers send one with every form POST, so a form on another site cannot post here: 403), the form read
// with a strict schema (400), the attempt counted per client address (passwordAttempts: 429 with
// Retry-After), the link read and its rules evaluated for this request (no password asked here any more: a
// 303 back to the code), then the password checked against the link's salted scrypt hash: wrong, 401 and
// the form again; right, a 200 page that opens the action's URL (a meta refresh and a link: a 303 would be
// held to the page's form-action 'self' by browsers). The scan was recorded when the page was shown (GET),
// spending nothing of a cap: the right password's pass spends the person's allowance, once a day
// (campaigns/answer.ts passThrough), and with none left sends them back to the code's closed answer.
// Guessing from many addresses (docs/campaign-rules.md, "Guessing"): each code has a budget of attempts
// checked freely (passwordCodeAttempts, every address together). Once it is spent, an address gets one try
// at the code for the rest of the window (an IPv6 /48 three), so a customer who has the password gets in
// at the first try from their own phone while the attackers' guesses stay within the budget plus one per
// address they hold. From the second wrong password on, an address waits before its next try at the code,
// doubling each time (1 s, 2 s, 4 s ...). The owner is alerted once a day per code when the budget runs out.
import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP } from "node:net";
import { clientAddressOf, clientOf, limitSubjectOf, proxyBucketPrefix } from "../core/clientAddress";
import { getConfig } from "../core/config";
import { requestTime } from "../core/testClock";
import { logInfo, logWarn } from "../core/log";
import { RateLimiter, rateLimitHeaders } from "../core/rateLimit";
import { refuseForeignAddress } from "../http/originGuard";
import { pageCsp } from "../http/rest";
import { placeOfRequest } from "../scans/place";
import { newScanId } from "../scans/arrival";
import { botReason } from "../scans/classify";
import { trackedAnswer } from "../attribution/onRedirect";
import { customHostOf } from "./customHost";
import { firestoreQuotaStore } from "../store/rateLimits";
import { readLinks } from "../store/codes";
import { countOps } from "../store/opCounter";
import type { Link } from "../store/codes";
import { PASSWORD_STYLE, passwordAcceptedPage, passwordLimitedPage, passwordPage, passwordRefusedPage, passwordStyle, type PageBrand, type PasswordNotice } from "./pages";

/** The form holds one field of at most 128 characters: anything much larger is not this page's form. */
const FORM_MAX_BYTES = 2_048;

let limiter: RateLimiter | undefined;

type Headers = Record<string, string>;

function sendPage(res: ServerResponse, status: number, html: string, headers: Headers, extra: Headers = {}, style = PASSWORD_STYLE): void {
  res.removeHeader("X-Powered-By");
  res
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the form's POST,
    // which the origin check must refuse; same-origin still tells no other site where the page was (and
    // Hosting sets the same for every /qr/ answer: firebase.json).
    .writeHead(status, { ...headers, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": pageCsp(style), "Referrer-Policy": "same-origin", ...extra })
    .end(html);
}

/** The password page itself (GET of a code whose rules ask for a password here): 200, or 401 with a notice; `brand`: the link's. */
export function sendPasswordPage(res: ServerResponse, headers: Headers, extra: Headers = {}, notice: PasswordNotice = "none", status = 200, brand?: PageBrand): void {
  sendPage(res, status, passwordPage(notice, brand), headers, extra, passwordStyle(brand));
}

/** The merchant's branding a code's link carries with its rules (campaigns/service.ts EndedBrand). */
export const linkBrandOf = (link: Link): PageBrand | undefined => (link.campaignRules as { brand?: PageBrand } | undefined)?.brand;

/** The request's body: the platform's raw copy when it read the body already (Cloud Functions), else the stream. */
async function bodyOf(req: IncomingMessage): Promise<Buffer | undefined> {
  const raw = (req as IncomingMessage & { rawBody?: unknown }).rawBody;
  if (Buffer.isBuffer(raw)) return raw.length > FORM_MAX_BYTES ? undefined : raw;
  if (req.readableEnded) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_MAX_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The form's fields, each once; undefined when it is not a form of this page (type, size, repeats). */
function formOf(req: IncomingMessage, body: Buffer | undefined): Record<string, string> | undefined {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded" || body === undefined) return undefined;
  const fields: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(body.toString("utf8"))) {
    if (name in fields) return undefined;
    fields[name] = value;
  }
  return fields;
}

export interface PasswordContext {
  headers: Headers;
  timeZoneOf(merchantId: string, now: number): Promise<string>;
  campaigns(): typeof import("../campaigns/answer");
  sendNotFound(res: ServerResponse): void;
}

/**
 * How long an address waits after its n-th wrong password at a code: nothing after the first (a typo, then
 * the right one, goes straight in), then 2^(n-2) s, at most GUESS_DELAY_MAX_MS.
 */
export const GUESS_DELAY_MAX_MS = 600_000;
/** (code, address) pairs whose delay an instance keeps at most; the oldest go first (a delay is a nicety above the budgets). */
const GUESS_DELAYS_MAX = 10_000;
const guessDelays = new Map<string, { wrong: number; until: number }>();

function delayOf(key: string, now: number): number {
  const entry = guessDelays.get(key);
  return entry && entry.until > now ? entry.until - now : 0;
}

function noteWrong(key: string, now: number): void {
  const entry = guessDelays.get(key) ?? { wrong: 0, until: 0 };
  entry.wrong += 1;
  entry.until = entry.wrong < 2 ? 0 : now + Math.min(GUESS_DELAY_MAX_MS, 1000 * 2 ** (entry.wrong - 2));
  guessDelays.delete(key);
  guessDelays.set(key, entry);
  if (guessDelays.size > GUESS_DELAYS_MAX) guessDelays.delete(guessDelays.keys().next().value!);
}

type Refusal = { retryAfterSeconds: number; why: string; headers: Headers };

/**
 * Whether this address may have its password checked at this code now (undefined) or must wait. Counts the
 * attempt against the code's budget, or, once that is spent, against the address's (and its /48's) one try.
 */
async function admitGuess(limit: RateLimiter, link: Link, id: string, address: string, subject: string, now: number): Promise<Refusal | undefined> {
  const wait = delayOf(`${id}|${subject}`, now);
  if (wait > 0) return { retryAfterSeconds: Math.ceil(wait / 1000), why: "A wrong password was just sent from here.", headers: { "Retry-After": String(Math.ceil(wait / 1000)) } };
  const code = await limit.take("passwordCodeAttempts", { code: id }, now);
  if (code.allowed) return undefined;
  await alertOnce(limit, link, id, now);
  const tries = [limit.take("passwordTriesWhileGuessed", { code: id, address: subject }, now)];
  if (isIP(address) === 6) tries.push(limit.take("passwordNetworkTriesWhileGuessed", { code: id, address: proxyBucketPrefix(address) }, now));
  const refused = (await Promise.all(tries)).find((d) => !d.allowed);
  if (!refused) return undefined;
  return { retryAfterSeconds: refused.retryAfterSeconds, why: "Too many wrong passwords were sent for this code.", headers: rateLimitHeaders(refused) };
}

/**
 * The owner's alert once the code's budget is spent: at most one a day per code (passwordAlerts). Awaited:
 * nothing runs after an answer is sent; it costs the one request that sends it two writes.
 */
async function alertOnce(limit: RateLimiter, link: Link, id: string, now: number): Promise<void> {
  try {
    if (!(await limit.take("passwordAlerts", { code: id }, now)).allowed) return;
    const { alertPasswordGuessing } = require("../campaigns/passwordAlert") as typeof import("../campaigns/passwordAlert");
    await alertPasswordGuessing(link, new Date(now));
  } catch (error) {
    logWarn("campaign.password_alert_failed", "the owner's password-guessing alert failed", { uniqueQRCodeID: id, reason: error instanceof Error ? error.message : String(error) });
  }
}

export async function handlePasswordPost(req: IncomingMessage, res: ServerResponse, id: string, ctx: PasswordContext): Promise<void> {
  if (refuseForeignAddress(req.headers) || req.headers.origin === undefined) return sendPage(res, 403, passwordRefusedPage(), ctx.headers);
  const { passwordFormSchema, verifyPassword } = require("../campaigns/password") as typeof import("../campaigns/password");
  const form = passwordFormSchema.safeParse(formOf(req, await bodyOf(req)) ?? null);
  if (!form.success) return sendPasswordPage(res, ctx.headers, {}, "invalid", 400);
  limiter ??= new RateLimiter(firestoreQuotaStore);
  // One instant for every window and delay this attempt is judged by (the test clock's, on the local stack).
  const now = requestTime(req.headers, getConfig().honoursTestClock);
  const client = clientOf(req);
  const subject = limitSubjectOf(client);
  const decision = await limiter.take("passwordAttempts", { address: subject }, now);
  if (!decision.allowed) {
    logInfo("campaign.password_limited", "password attempts limited for an address", { uniqueQRCodeID: id, retryAfterSeconds: decision.retryAfterSeconds });
    return sendPage(res, 429, passwordLimitedPage(decision.retryAfterSeconds), ctx.headers, rateLimitHeaders(decision));
  }
  const [link] = await readLinks([id]);
  countOps({ reads: 1 });
  if (!link || link.takenDown) return ctx.sendNotFound(res);
  const at = new Date(now);
  const ruled = link.campaignRules ? { ...link, campaignRules: link.campaignRules } : undefined;
  const scan = { method: "GET", headers: req.headers, url: req.url ?? "", address: clientAddressOf(req), place: await placeOfRequest(req), at, timeZone: await ctx.timeZoneOf(link.merchantId, at.getTime()) };
  const target = ruled ? await ctx.campaigns().passwordTarget(ruled, scan) : undefined;
  // No password is asked here any more (rules changed, the campaign ended): the code answers for itself.
  const backToCode = () => sendPage(res, 303, "", ctx.headers, { Location: `/qr/${encodeURIComponent(id)}` });
  if (!ruled || !target) return backToCode();
  const refusal = await admitGuess(limiter, link, id, client.address, subject, now);
  if (refusal) {
    logInfo("campaign.password_limited", "password attempts limited for a code", { uniqueQRCodeID: id, retryAfterSeconds: refusal.retryAfterSeconds });
    return sendPage(res, 429, passwordLimitedPage(refusal.retryAfterSeconds, refusal.why), ctx.headers, refusal.headers);
  }
  if (!(await verifyPassword(form.data.password, target.hash))) {
    noteWrong(`${id}|${subject}`, now);
    return sendPasswordPage(res, ctx.headers, rateLimitHeaders(decision), "wrong", 401, linkBrandOf(link));
  }
  // A capped code's allowance is spent here, by the right password, not by the page's view. None left (or none
  // in time): the code answers for itself (its closed answer, or the page again to try once more).
  if ((await ctx.campaigns().passThrough(ruled, scan)) !== "open") return backToCode();
  // A tracked code's pass-through carries a click id as its 302s do (docs/attribution.md, "On the redirect"),
  // under a scan id of its own: the page's view was recorded as the scan, and the form does not carry its id.
  const person = botReason(scan.method, req.headers) === null;
  const click = { uniqueQRCodeID: id, scanId: newScanId(), person, rule: target.rule, at, customHost: customHostOf(req) };
  const tracked = await trackedAnswer(link, target.url, click, false);
  sendPage(res, 200, passwordAcceptedPage(tracked.location), ctx.headers, tracked.cookie ? { "Set-Cookie": tracked.cookie } : {});
}
