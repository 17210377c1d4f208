// Password-protected codes through the local front end (docs/campaign-rules.md, "The password page"): the
// page asks for the password and names nothing of the destination; a wrong password is refused (401) and
// attempts are limited per address (429); the right one opens the destination (200) and the scan was counted when the
// page was shown; a form from another site (403) or not this page's form (400) is refused; the password is
// stored only as a salted hash and never read back.
import assert from "node:assert/strict";
import { baseUrl } from "../helpers/env";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, firestore, type TestMerchant } from "../helpers/merchants";
import { newClient, type TestClient } from "../helpers/clients";
import { RATE_LIMITS } from "../../functions/src/core/rateLimit";
import { eventually } from "../helpers/poll";
import { consoleApi } from "../helpers/consoleApi";
import { nextWindowStart, servedAt } from "../helpers/clock";

const PHONE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";
const SECRET_DESTINATION = "https://example.com/members-only";
const VIP = "https://example.com/vip-lounge";
const PASSWORD = "correct horse battery";

async function open(client: TestClient, id: string, query = "") {
  const res = await client.fetch(`${baseUrl()}/qr/${id}${query}`, { method: "GET", redirect: "manual", headers: { "User-Agent": PHONE } });
  return { res, body: await res.text() };
}

async function post(client: TestClient, id: string, body: string, headers: Record<string, string> = {}, query = "") {
  const res = await client.fetch(`${baseUrl()}/qr/${id}${query}`, {
    method: "POST",
    redirect: "manual",
    headers: { "User-Agent": PHONE, "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(baseUrl()).origin, ...headers },
    body,
  });
  return { res, body: await res.text() };
}

const form = (password: string) => new URLSearchParams({ password }).toString();

/** Where the right password's page opens: its meta refresh's URL, which its link names too. */
function opens(body: string): string {
  const refresh = /<meta http-equiv="refresh" content="0;url=([^"]*)">/.exec(body)?.[1];
  const link = /<a href="([^"]*)" id="continue">/.exec(body)?.[1];
  assert.ok(refresh !== undefined && refresh === link, body);
  return refresh.replaceAll("&amp;", "&");
}

/** Nothing of where the right password leads, anywhere in an answer. */
function namesNoDestination(answer: { res: Response; body: string }): void {
  const everything = `${answer.body}\n${[...answer.res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}`;
  for (const url of [SECRET_DESTINATION, VIP]) assert.ok(!everything.includes(url) && !everything.includes(new URL(url).pathname), `${answer.res.status} names ${url}`);
}

const setRules = (merchant: TestMerchant, codeId: string, settings: unknown) => callTool("svc.qr.set_rules", { codeId, settings }, merchant.apiKey);

describe("campaign password page: hashed, limited, never showing the destination", function () {
  this.timeout(120_000);
  let merchant: TestMerchant;
  let code: { codeId: string; uniqueQRCodeID: string };
  before(async () => {
    merchant = await createMerchant();
    code = toolResult(await callTool("svc.qr.create", { title: "members", destinationUrl: SECRET_DESTINATION, dynamic: true }, merchant.apiKey));
  });

  it("stores the password only as a salted hash; a password action without one, or a short one, is refused", async () => {
    const missing = await setRules(merchant, code.codeId, { rules: [{ when: {}, then: { type: "password" } }] });
    assert.match(JSON.stringify(missing.body), /action needs password/);
    const short = await setRules(merchant, code.codeId, { rules: [{ when: {}, then: { type: "password" } }], password: "abc" });
    assert.match(JSON.stringify(short.body), /password has at least 8 characters/);
    const set = toolResult(
      await setRules(merchant, code.codeId, {
        rules: [
          { when: { query: { name: "vip" } }, then: { type: "password", url: VIP } },
          { when: {}, then: { type: "password" } },
        ],
        password: PASSWORD,
      }),
    );
    assert.ok(!JSON.stringify(set).includes(PASSWORD), "never read back");
    const link = (await firestore().collection("links").doc(code.uniqueQRCodeID).get()).data()!;
    const stored = JSON.stringify(link);
    assert.ok(!stored.includes(PASSWORD) && !stored.includes("horse"), "the link holds no password");
    assert.equal(link.campaignRules.passwordHash.alg, "scrypt");
    assert.ok(link.campaignRules.passwordHash.salt.length >= 20);
    const codeDoc = JSON.stringify((await firestore().collection("workspaces").doc(merchant.merchantId).collection("codes").doc(code.codeId).get()).data());
    assert.ok(!codeDoc.includes(PASSWORD) && !codeDoc.includes("passwordHash"), "the code holds neither");
    // Rules changed without the password keep the one the code has.
    toolResult(await setRules(merchant, code.codeId, { rules: [{ when: { query: { name: "vip" } }, then: { type: "password", url: VIP } }, { when: {}, then: { type: "password" } }] }));
    const kept = (await firestore().collection("links").doc(code.uniqueQRCodeID).get()).data()!;
    assert.deepEqual(kept.campaignRules.passwordHash, link.campaignRules.passwordHash);
  });

  it("shows the page (counted as a scan), refuses a wrong password with 401, opens the destination with the right one", async () => {
    const person = newClient();
    const page = await open(person, code.uniqueQRCodeID);
    assert.equal(page.res.status, 200);
    // Recorded before the page (its arrival carries the password rule); the consumer counts it.
    assert.equal(page.res.headers.get("x-scan-counted"), "recorded");
    assert.equal(page.res.headers.get("cache-control"), "no-store");
    assert.match(page.body, /<form method="post"><label for="password">/);
    // A browser then sends the form with its real Origin (under no-referrer it would send Origin: null, refused).
    assert.equal(page.res.headers.get("referrer-policy"), "same-origin");
    namesNoDestination(page);

    const wrong = await post(person, code.uniqueQRCodeID, form("correct horse"));
    assert.equal(wrong.res.status, 401);
    assert.match(wrong.body, /That password is not right/);
    namesNoDestination(wrong);

    // The right password: a page that opens the destination (a meta refresh and a link, not a 303, which
    // browsers would hold to the form page's form-action 'self'; test/browser/campaign-password.test.ts).
    const right = await post(person, code.uniqueQRCodeID, form(PASSWORD));
    assert.equal(right.res.status, 200);
    assert.equal(opens(right.body), SECRET_DESTINATION);
    assert.equal(right.res.headers.get("referrer-policy"), "same-origin", "the destination learns nothing of the page");
    // The rule that matched this request decides where the right password leads.
    const vip = await post(person, code.uniqueQRCodeID, form(PASSWORD), {}, "?vip=1");
    assert.equal(opens(vip.body), VIP);
  });

  it("refuses a form from another site (403) and anything but the page's form (400), naming no destination", async () => {
    const person = newClient();
    const cases: Array<[string, Record<string, string>, number]> = [
      [form(PASSWORD), { Origin: "https://evil.example" }, 403],
      [form(PASSWORD), { Origin: "null" }, 403],
      [`${form(PASSWORD)}&next=https://evil.example`, {}, 400],
      [`password=a&password=b`, {}, 400],
      [JSON.stringify({ password: PASSWORD }), { "Content-Type": "application/json" }, 400],
      ["password=", {}, 400],
      [`password=${"x".repeat(3_000)}`, {}, 400],
    ];
    for (const [body, headers, status] of cases) {
      const answer = await post(person, code.uniqueQRCodeID, body, headers);
      assert.equal(answer.res.status, status, `${status} for ${body.slice(0, 40)} ${JSON.stringify(headers)}`);
      namesNoDestination(answer);
    }
    // Without an Origin header at all (not a browser's form post): refused as well.
    const bare = await person.fetch(`${baseUrl()}/qr/${code.uniqueQRCodeID}`, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: form(PASSWORD) });
    assert.equal(bare.status, 403);
  });

  it(`limits attempts per address: within ${RATE_LIMITS.passwordAttempts.max} the page answers 429, even to the right password; another address is not limited`, async () => {
    const guesser = newClient();
    // Each emulator worker is an instance leasing quota in chunks (core/rateLimit.ts): never more than the
    // limit across them, possibly a little less. Wrong guesses until the limit answers.
    const answers: number[] = [];
    while (answers.length < RATE_LIMITS.passwordAttempts.max + 5 && answers.at(-1) !== 429) answers.push((await post(guesser, code.uniqueQRCodeID, form(`guess number ${answers.length}`))).res.status);
    assert.equal(answers.at(-1), 429, answers.join(" "));
    const wrongs = answers.filter((s) => s === 401).length;
    assert.ok(wrongs >= 1 && wrongs <= RATE_LIMITS.passwordAttempts.max, answers.join(" "));
    assert.deepEqual(answers.slice(0, wrongs), answers.slice(0, wrongs).map(() => 401));
    const limited = await post(guesser, code.uniqueQRCodeID, form(PASSWORD));
    assert.equal(limited.res.status, 429);
    assert.match(limited.body, /Too many attempts/);
    assert.ok(Number(limited.res.headers.get("retry-after")) > 0);
    namesNoDestination(limited);
    const other = await post(newClient(), code.uniqueQRCodeID, form(PASSWORD));
    assert.equal(other.res.status, 200);
    assert.equal(opens(other.body), SECRET_DESTINATION);
  });

  it("a capped code's password page spends nothing when viewed; the right password spends the person's allowance, once a day", async () => {
    const capped = toolResult(await callTool("svc.qr.create", { title: "members, capped", destinationUrl: SECRET_DESTINATION, dynamic: true }, merchant.apiKey));
    toolResult(await setRules(merchant, capped.codeId, { rules: [{ when: {}, then: { type: "password" } }], password: PASSWORD, humanScanCap: 5 }));
    const shards = () => firestore().collection("workspaces").doc(merchant.merchantId).collection("capShards").where("codeId", "==", capped.codeId).get();
    /** The allowances not spent, once every lease is settled (what an instance leased and did not use comes back). */
    const left = async () => {
      const docs = await eventually(async () => (await shards()).docs.map((d) => d.data()), (d) => d.length > 0 && d.every((x) => Object.keys(x.leases).length === 0), { what: "leases settled", timeoutMs: 20_000 });
      return docs.reduce((sum, d) => sum + (d.remaining as number), 0);
    };
    const [first, second, third] = [newClient(), newClient(), newClient()];
    for (const person of [first, second, third]) assert.equal((await open(person, capped.uniqueQRCodeID)).res.status, 200);
    assert.equal(await left(), 5, "three views of the page spent nothing");
    const right = await post(first, capped.uniqueQRCodeID, form(PASSWORD));
    assert.equal(opens(right.body), SECRET_DESTINATION);
    assert.equal(opens((await post(first, capped.uniqueQRCodeID, form(PASSWORD))).body), SECRET_DESTINATION, "the same person again gets in");
    assert.equal(await left(), 4, "the right password spent one allowance, and its repeat none");
  });

  it("a code whose rules no longer ask for a password here sends the form back to the code", async () => {
    const plain = toolResult(await callTool("svc.qr.create", { title: "plain", destinationUrl: "https://example.com/open", dynamic: true }, merchant.apiKey));
    const answer = await post(newClient(), plain.uniqueQRCodeID, form(PASSWORD));
    assert.equal(answer.res.status, 303);
    assert.equal(answer.res.headers.get("location"), `/qr/${plain.uniqueQRCodeID}`);
  });

  it("while 30 addresses guess a code's password, a customer from a fresh address with the right one gets in within 10 s, the guesses stay within the code's budget, and the owner is alerted", async () => {
    const guarded = toolResult(await callTool("svc.qr.create", { title: "guessed", destinationUrl: SECRET_DESTINATION, dynamic: true }, merchant.apiKey));
    toolResult(await setRules(merchant, guarded.codeId, { rules: [{ when: {}, then: { type: "password" } }], password: PASSWORD }));
    const budget = RATE_LIMITS.passwordCodeAttempts.max;
    // The code's budget is per window: a clock that starts the attack at a window's start and runs with the
    // wall clock keeps the whole attack in one window, however slow the machine (a window that ended midway
    // would rightly give the guessers a second budget).
    const shift = nextWindowStart(RATE_LIMITS.passwordCodeAttempts.windowSeconds * 1000) - Date.now();
    const clock = () => servedAt(Date.now() + shift);
    const attackers = Array.from({ length: 30 }, () => newClient());
    let checked = 0; // wrong guesses the service checked and answered 401
    let spent = false; // some attacker was told the code's budget is spent
    let sent = 0;
    // Each attacker sends up to passwordAttempts guesses, honouring a short Retry-After as a patient script would.
    const attack = Promise.all(
      attackers.map(async (attacker, a) => {
        for (let i = 0; i < RATE_LIMITS.passwordAttempts.max; i++) {
          sent += 1;
          const answer = await post(attacker, guarded.uniqueQRCodeID, form(`guess ${a}-${i}`), clock());
          if (answer.res.status === 401) checked += 1;
          else if (answer.res.status === 429) {
            if (/for this code/.test(answer.body)) spent = true;
            const wait = Number(answer.res.headers.get("retry-after"));
            if (!(wait <= 4)) return;
            await new Promise((r) => setTimeout(r, wait * 1000));
          } else assert.fail(`an attacker got ${answer.res.status}`);
        }
      }),
    );
    await eventually(async () => spent, (s) => s, { timeoutMs: 60_000, what: "the code's budget spent by the guessing" });
    const started = Date.now();
    const customer = await post(newClient(), guarded.uniqueQRCodeID, form(PASSWORD), clock());
    const took = Date.now() - started;
    assert.equal(customer.res.status, 200, customer.body);
    assert.equal(opens(customer.body), SECRET_DESTINATION);
    assert.ok(took < 10_000, `the customer waited ${took} ms`);
    await attack;
    // The budget, then at most one try per attacking address: far below what 30 addresses' own limits allow.
    assert.ok(checked <= budget + attackers.length, `${checked} guesses checked of ${sent} sent (budget ${budget} + ${attackers.length} addresses)`);
    assert.ok(sent > budget + attackers.length, `the attack sent ${sent}: more than the budget lets through`);

    // The owner is told: a mail, and a notice on the code in the console (once a day per code).
    const mails = await eventually(
      async () => (await firestore().collection("mail").where("to", "==", merchant.email).get()).docs.map((d) => d.data()),
      (all) => all.some((x: any) => /guessing/.test(x.message.subject)),
      { timeoutMs: 15_000, what: "the owner's guessing alert" },
    );
    assert.equal(mails.filter((x: any) => /guessing/.test(x.message.subject)).length, 1, "one alert");
    const detail = await consoleApi(`/codes/${guarded.codeId}`, merchant.idToken);
    assert.match(detail.body.passwordNotice.message, /someone may be guessing/);
    assert.ok(!JSON.stringify(mails).includes(attackers[0].presentedAs), "no address is named");
  });
});
