// The destination blocklist: host, subdomain and prefix matching of the shipped list, and the Safe Browsing
// layer behind an injected lookup or a stubbed fetch. No test reaches the network: global fetch is replaced
// by one that fails the test for the whole file.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  BLOCKLIST_PATH,
  checkDestination,
  LIST_THREAT,
  matchBlocklist,
  parseBlocklist,
  safeBrowsingClient,
  type LookupVerdict,
  type SafeBrowsingLookup,
} from "../../functions/src/abuse/blocklist";

/** Runs `work` and returns what the functions logger wrote meanwhile (it writes JSON lines to stdout/stderr). */
async function captureLogs(work: () => Promise<void> | void): Promise<string> {
  const written: string[] = [];
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const grab = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  process.stdout.write = grab as typeof process.stdout.write;
  process.stderr.write = grab as typeof process.stderr.write;
  try {
    await work();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  return written.join("");
}

/** The list alone: no Safe Browsing, whatever the environment says. */
const listOnly = (url: string) => checkDestination(url, { safeBrowsing: null });

/** A lookup that answers `threat` and records what it was asked. */
function lookupAnswering(threat: string | null): SafeBrowsingLookup & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    find: async (url) => {
      asked.push(url);
      return threat;
    },
  };
}

interface FetchCall {
  url: string;
  init: RequestInit | undefined;
}

/** A fetch stub answering `body` with `status`, recording each call. */
function fetchAnswering(body: unknown, status = 200): typeof fetch & { calls: FetchCall[] } {
  const calls: FetchCall[] = [];
  const stub = async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), init });
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  };
  return Object.assign(stub as typeof fetch, { calls });
}

/** A fetch stub that never answers until its signal aborts (what a hung connection looks like). */
function fetchHanging(): typeof fetch & { aborted: () => boolean } {
  let signal: AbortSignal | undefined;
  const stub = (_input: string | URL | Request, init?: RequestInit) =>
    new Promise<Response>((_, reject) => {
      signal = init?.signal ?? undefined;
      signal?.addEventListener("abort", () => reject(signal?.reason));
    });
  return Object.assign(stub as typeof fetch, { aborted: () => signal?.aborted === true });
}

describe("destination blocklist", () => {
  const realFetch = globalThis.fetch;
  const realKey = process.env.SAFE_BROWSING_API_KEY;

  before(() => {
    globalThis.fetch = (async (input: string | URL | Request) => {
      throw new Error(`a test tried to reach the network: ${String(input)}`);
    }) as typeof fetch;
    delete process.env.SAFE_BROWSING_API_KEY;
  });

  after(() => {
    globalThis.fetch = realFetch;
    if (realKey === undefined) delete process.env.SAFE_BROWSING_API_KEY;
    else process.env.SAFE_BROWSING_API_KEY = realKey;
  });

  describe("the shipped list", () => {
    it("parses with no ignored line and holds the reserved test entries", () => {
      const list = parseBlocklist(readFileSync(BLOCKLIST_PATH, "utf8"));
      assert.deepEqual(list.invalid, []);
      for (const host of ["phishing.test", "malware-demo.invalid", "xn--bcher-phish-thb.test"]) assert.ok(list.hosts.has(host), host);
      assert.deepEqual(list.prefixes.get("lure.test"), ["https://lure.test/login"]);
    });

    it("blocks a listed host, and not an unlisted one", async () => {
      assert.deepEqual(await listOnly("https://phishing.test/"), { blocked: true, source: "list", matched: "phishing.test", threat: LIST_THREAT });
      assert.deepEqual(await listOnly("https://malware-demo.invalid/download.exe"), {
        blocked: true,
        source: "list",
        matched: "malware-demo.invalid",
        threat: LIST_THREAT,
      });
      assert.deepEqual(await listOnly("https://bakery.test/menu"), { blocked: false });
    });

    it("blocks every subdomain of a listed host", async () => {
      for (const url of ["https://www.phishing.test/", "https://a.b.phishing.test/x?y=1", "http://login.malware-demo.invalid:8080/"]) {
        const verdict = await listOnly(url);
        assert.equal(verdict.blocked, true, url);
      }
      const verdict = await listOnly("https://a.b.phishing.test/x");
      assert.ok(verdict.blocked && verdict.matched === "phishing.test");
    });

    it("matches on label boundaries only", async () => {
      for (const url of [
        "https://notphishing.test/",
        "https://xphishing.test/",
        "https://phishing.test.bakery.example/",
        "https://phishing-test.example/",
        "https://bakery.test/phishing.test",
        "https://bakery.test/?next=https://phishing.test/",
      ]) {
        assert.deepEqual(await listOnly(url), { blocked: false }, url);
      }
    });

    it("ignores case and a trailing dot", async () => {
      for (const url of ["HTTPS://PHISHING.TEST/", "https://Phishing.Test./", "https://WWW.PHISHING.TEST.:443/path"]) {
        const verdict = await listOnly(url);
        assert.ok(verdict.blocked && verdict.matched === "phishing.test", url);
      }
    });

    it("compares internationalised names in punycode, whichever way either side is written", async () => {
      for (const url of ["https://bücher-phish.test/", "https://BÜCHER-PHISH.test/", "https://xn--bcher-phish-thb.test/", "https://shop.bücher-phish.test/"]) {
        const verdict = await listOnly(url);
        assert.ok(verdict.blocked && verdict.matched === "xn--bcher-phish-thb.test", url);
      }
      assert.deepEqual(await listOnly("https://bucher-phish.test/"), { blocked: false }, "the ASCII look-alike is another name");
      const list = parseBlocklist("XN--BCHER-PHISH-THB.TEST\n");
      assert.equal(matchBlocklist(list, new URL("https://bücher-phish.test/")), "xn--bcher-phish-thb.test");
    });

    it("blocks URLs under a URL prefix entry, and nothing else on that host", async () => {
      for (const url of [
        "https://lure.test/login",
        "https://lure.test/login/step-2?session=1",
        "HTTPS://LURE.TEST/LOGIN",
        "https://user:secret@lure.test/login",
        "https://lure.test./login",
      ]) {
        assert.deepEqual(await listOnly(url), { blocked: true, source: "list", matched: "https://lure.test/login", threat: LIST_THREAT }, url);
      }
      for (const url of ["https://lure.test/", "https://lure.test/about", "https://www.lure.test/login", "https://lure.test:8443/login", "http://lure.test/login"]) {
        assert.deepEqual(await listOnly(url), { blocked: false }, url);
      }
    });
  });

  describe("parsing and matching", () => {
    it("matches IP literals exactly, in any spelling the URL parser normalises", () => {
      const list = parseBlocklist("192.0.2.1\n2001:DB8::1\n[2001:db8::2]\n");
      assert.deepEqual(list.invalid, []);
      const match = (url: string) => matchBlocklist(list, new URL(url));
      assert.equal(match("http://192.0.2.1/"), "192.0.2.1");
      assert.equal(match("http://0xC0.0.2.1/pay"), "192.0.2.1", "hexadecimal spelling");
      assert.equal(match("http://3221225985/"), "192.0.2.1", "single number spelling");
      assert.equal(match("https://[2001:db8:0:0::1]/"), "[2001:db8::1]");
      assert.equal(match("https://[2001:db8::2]:8443/"), "[2001:db8::2]");
      assert.equal(match("http://192.0.2.10/"), undefined);
      assert.equal(match("http://192.0.2.2/"), undefined);
      assert.equal(match("https://[2001:db8::3]/"), undefined);
      assert.equal(match("http://192.0.2.1.nip.test/"), undefined, "a name that starts with the address is not the address");
    });

    it("matches URL prefix entries however the path's unreserved characters are percent-encoded (review I5)", () => {
      const list = parseBlocklist("https://lure.test/login\nhttps://bait.test/p%61y\n");
      const match = (url: string) => matchBlocklist(list, new URL(url));
      const spellings = (word: string) => [word, ...[...word].map((_, i) => `${word.slice(0, i)}%${word.charCodeAt(i).toString(16)}${word.slice(i + 1)}`), [...word].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join(""), word.toUpperCase()];
      for (const path of spellings("login")) assert.equal(match(`https://lure.test/${path}/next`), "https://lure.test/login", path);
      for (const path of spellings("pay")) assert.equal(match(`https://bait.test/${path}`), "https://bait.test/pay", path);
      // An escaped reserved character is not the character: /log%2Fin is not /login.
      assert.equal(match("https://lure.test/log%2Fin"), undefined);
      assert.equal(match("https://lure.test/logout"), undefined);
      assert.equal(match("https://lure.test/%2e%2e/login"), "https://lure.test/login", "dot segments resolve first");
    });

    it("skips comments and blank lines, lowercases, and reports lines that are no entry", () => {
      const list = parseBlocklist(
        ["# a comment", "", "   Evil.Example   ", "*.wild.example", "spam.example # added for ticket 12", "evil.example/path", "evil.example:8080", "https://", "two words.example"].join(
          "\n",
        ),
      );
      assert.deepEqual([...list.hosts].sort(), ["evil.example", "spam.example", "wild.example"]);
      assert.deepEqual(
        list.invalid.map((i) => i.line),
        [6, 7, 8, 9],
      );
    });
  });

  describe("the Safe Browsing layer", () => {
    it("blocks what the lookup names a threat, asking it with the normalised URL", async () => {
      const lookup = lookupAnswering("SOCIAL_ENGINEERING");
      const verdict = await checkDestination("https://user:pw@Bakery.TEST/menu?table=4", { safeBrowsing: lookup });
      assert.deepEqual(verdict, { blocked: true, source: "safe-browsing", matched: "https://bakery.test/menu?table=4", threat: "SOCIAL_ENGINEERING" });
      assert.deepEqual(lookup.asked, ["https://bakery.test/menu?table=4"], "credentials are never sent");
    });

    it("allows what the lookup does not name, and skips it for a listed destination", async () => {
      const clean = lookupAnswering(null);
      assert.deepEqual(await checkDestination("https://bakery.test/", { safeBrowsing: clean }), { blocked: false });
      assert.equal(clean.asked.length, 1);
      const unused = lookupAnswering("MALWARE");
      const verdict = await checkDestination("https://phishing.test/", { safeBrowsing: unused });
      assert.ok(verdict.blocked && verdict.source === "list");
      assert.deepEqual(unused.asked, []);
    });

    it("reports a destination it could not check as unchecked (not blocked), and logs a named warning with the host only", async () => {
      const failing: SafeBrowsingLookup = {
        find: async () => {
          throw new Error("quota exceeded");
        },
      };
      let verdict: unknown;
      const logs = await captureLogs(async () => {
        verdict = await checkDestination("https://bakery.test/pay?token=merchant-secret", { safeBrowsing: failing });
      });
      assert.deepEqual(verdict, { blocked: false, unchecked: true });
      const line = logs.split("\n").find((l) => l.includes("abuse.safe_browsing_failed"));
      assert.ok(line, `a warning names the event: ${logs}`);
      assert.match(line, /abuse: safe browsing lookup failed/);
      assert.match(line, /bakery\.test/);
      assert.match(line, /quota exceeded/);
      assert.ok(!line.includes("merchant-secret"), "the destination's query is not logged");
    });

    it("reports a lookup that times out as unchecked, within its deadline", async () => {
      const hanging = fetchHanging();
      let verdict: unknown;
      const started = Date.now();
      const logs = await captureLogs(async () => {
        verdict = await checkDestination("https://bakery.test/", { safeBrowsing: safeBrowsingClient("test-key", hanging, 30) });
      });
      assert.deepEqual(verdict, { blocked: false, unchecked: true });
      assert.ok(Date.now() - started < 1_000, "the deadline, not the hung request, decided");
      assert.ok(hanging.aborted(), "the request was aborted");
      const line = logs.split("\n").find((l) => l.includes("abuse.safe_browsing_failed"));
      assert.ok(line && /no answer within 30 ms/.test(line), `a warning names the timeout: ${logs}`);
      assert.ok(!line.includes("test-key"), "the API key is not logged");
    });

    it("keeps a listed verdict for the API's cacheDuration and a clean one 5 minutes, never over 30 minutes, per URL", async () => {
      const t0 = Date.UTC(2026, 10, 29, 12);
      const asked: string[] = [];
      const answers: Record<string, LookupVerdict> = {
        "https://short.test/": { threat: "MALWARE", cacheSeconds: 300 },
        "https://long.test/": { threat: "SOCIAL_ENGINEERING", cacheSeconds: 7200 },
        "https://clean.test/": { threat: null },
      };
      const lookup: SafeBrowsingLookup = {
        find: async () => assert.fail("lookup() is used when present"),
        lookup: async (url) => {
          asked.push(url);
          return answers[url];
        },
      };
      const at = async (url: string, ms: number) => checkDestination(url, { safeBrowsing: lookup, now: t0 + ms });
      for (const url of Object.keys(answers)) await at(url, 0);
      assert.equal(asked.length, 3);
      // Within each lifetime: no lookup, the same verdict; the fragment does not make another URL.
      assert.ok((await at("https://short.test/#x", 299_000)).blocked);
      assert.ok((await at("https://long.test/", 29 * 60_000)).blocked);
      assert.deepEqual(await at("https://clean.test/", 299_000), { blocked: false });
      assert.equal(asked.length, 3);
      // Past them: looked up again (the long one after 30 minutes, not its 2 hours).
      await at("https://short.test/", 301_000);
      await at("https://clean.test/", 301_000);
      await at("https://long.test/", 30 * 60_000 + 1);
      assert.deepEqual(asked.slice(3).sort(), ["https://clean.test/", "https://long.test/", "https://short.test/"]);
    });

    it("reads the threat's cacheDuration from the API's answer", async () => {
      const client = safeBrowsingClient("test-key", fetchAnswering({ matches: [{ threatType: "MALWARE", cacheDuration: "300.000s" }] }));
      assert.deepEqual(await client.lookup!("https://bakery.test/"), { threat: "MALWARE", cacheSeconds: 300 });
      assert.deepEqual(await safeBrowsingClient("test-key", fetchAnswering({})).lookup!("https://bakery.test/"), { threat: null });
    });

    it("uses SAFE_BROWSING_API_KEY by default, and nothing when it is unset", async () => {
      const stub = fetchAnswering({ matches: [{ threatType: "MALWARE" }] });
      globalThis.fetch = stub;
      try {
        assert.deepEqual(await checkDestination("https://bakery.test/"), { blocked: false });
        assert.equal(stub.calls.length, 0, "no key, no lookup");
        process.env.SAFE_BROWSING_API_KEY = "env-key";
        const verdict = await checkDestination("https://bakery.test/");
        assert.deepEqual(verdict, { blocked: true, source: "safe-browsing", matched: "https://bakery.test/", threat: "MALWARE" });
        assert.equal(stub.calls.length, 1);
        assert.equal(stub.calls[0].url, "https://safebrowsing.googleapis.com/v4/threatMatches:find?key=env-key");
      } finally {
        delete process.env.SAFE_BROWSING_API_KEY;
        globalThis.fetch = (async () => {
          throw new Error("a test tried to reach the network");
        }) as typeof fetch;
      }
    });
  });

  describe("safeBrowsingClient", () => {
    it("POSTs the threatMatches:find request and reads the threat type of a match", async () => {
      const stub = fetchAnswering({
        matches: [
          { threatType: "SOCIAL_ENGINEERING", platformType: "ANY_PLATFORM", threatEntryType: "URL", threat: { url: "https://bakery.test/" }, cacheDuration: "300s" },
        ],
      });
      const threat = await safeBrowsingClient("test-key", stub).find("https://bakery.test/");
      assert.equal(threat, "SOCIAL_ENGINEERING");
      assert.equal(stub.calls.length, 1);
      const [{ url, init }] = stub.calls;
      assert.equal(url, "https://safebrowsing.googleapis.com/v4/threatMatches:find?key=test-key");
      assert.equal(init?.method, "POST");
      assert.equal(new Headers(init?.headers).get("content-type"), "application/json");
      assert.ok(init?.signal instanceof AbortSignal, "the request carries the deadline's signal");
      assert.deepEqual(JSON.parse(String(init?.body)), {
        client: { clientId: "merchant-qr-service", clientVersion: "1.0.0" },
        threatInfo: {
          threatTypes: ["MALWARE", "SOCIAL_ENGINEERING", "UNWANTED_SOFTWARE", "POTENTIALLY_HARMFUL_APPLICATION"],
          platformTypes: ["ANY_PLATFORM"],
          threatEntryTypes: ["URL"],
          threatEntries: [{ url: "https://bakery.test/" }],
        },
      });
    });

    it("gives up at its deadline even when fetch ignores the abort signal", async () => {
      const deaf = (() => new Promise<Response>(() => {})) as typeof fetch;
      const started = Date.now();
      await assert.rejects(safeBrowsingClient("test-key", deaf, 30).find("https://bakery.test/"), /no answer within 30 ms/);
      assert.ok(Date.now() - started < 1_000);
    });

    it("reads {} and an empty match list as no match", async () => {
      assert.equal(await safeBrowsingClient("test-key", fetchAnswering({})).find("https://bakery.test/"), null);
      assert.equal(await safeBrowsingClient("test-key", fetchAnswering({ matches: [] })).find("https://bakery.test/"), null);
    });

    it("escapes the key in the query string", async () => {
      const stub = fetchAnswering({});
      await safeBrowsingClient("a&b=c", stub).find("https://bakery.test/");
      assert.equal(stub.calls[0].url, "https://safebrowsing.googleapis.com/v4/threatMatches:find?key=a%26b%3Dc");
    });

    it("rejects an error status or an unexpected answer, never quoting the key", async () => {
      for (const [body, status, reason] of [
        [{ error: { code: 403, message: "API key not valid" } }, 403, /HTTP 403/],
        [{ matches: "yes" }, 200, /not a list/],
        [null, 200, /JSON object/],
      ] as const) {
        await assert.rejects(safeBrowsingClient("secret-key-123", fetchAnswering(body, status)).find("https://bakery.test/"), (error: Error) => {
          assert.match(error.message, reason);
          assert.ok(!error.message.includes("secret-key-123"));
          return true;
        });
      }
      const leaky = (async (input: string | URL | Request) => {
        throw new Error(`connect ECONNREFUSED for ${String(input)}`);
      }) as typeof fetch;
      await assert.rejects(safeBrowsingClient("secret-key-123", leaky).find("https://bakery.test/"), (error: Error) => {
        assert.match(error.message, /ECONNREFUSED/);
        assert.ok(!error.message.includes("secret-key-123"), error.message);
        return true;
      });
    });
  });
});
