// Size bounds of what a scan writes, proved with 100,000 random inputs: the breakdown names come from
// closed sets whatever a client sends, and random User-Agents from one address are one visitor.
import assert from "node:assert/strict";
import { BROWSER_NAMES, deviceOf, DEVICE_TYPES, OS_NAMES, OTHER } from "../../functions/src/scans/device";
import { visitorKey } from "../../functions/src/scans/record";
import { BROWSERS, randomUserAgent, realCrowd, unrecognisedUserAgent } from "../fixtures/user-agents";
import { prng } from "../helpers/fuzz";

const RUNS = 100_000;

describe("scan size bounds", () => {
  it(`device, OS and browser names of ${RUNS.toLocaleString("en")} random User-Agents stay in their closed sets`, function () {
    this.timeout(120_000);
    const rand = prng(35);
    const seen = { device: new Set<string>(), os: new Set<string>(), browser: new Set<string>() };
    for (let i = 0; i < RUNS; i++) {
      const d = deviceOf(randomUserAgent(rand));
      seen.device.add(d.device);
      seen.os.add(d.os);
      seen.browser.add(d.browser);
    }
    const within = (names: Set<string>, known: ReadonlySet<string>) => [...names].filter((n) => !known.has(n) && n !== OTHER && n !== "unknown");
    assert.deepEqual(within(seen.device, DEVICE_TYPES), []);
    assert.deepEqual(within(seen.os, OS_NAMES), []);
    assert.deepEqual(within(seen.browser, BROWSER_NAMES), []);
    // The bound each map is documented with (docs/data-model.md): the closed set plus Other and unknown.
    assert.ok(DEVICE_TYPES.size + 1 <= 5 && OS_NAMES.size + 2 <= 20 && BROWSER_NAMES.size + 2 <= 80, `sets: ${DEVICE_TYPES.size}, ${OS_NAMES.size}, ${BROWSER_NAMES.size}`);
    assert.ok(seen.browser.has(OTHER), "names outside the set are counted as Other");
  });

  it(`${RUNS.toLocaleString("en")} random-word User-Agents from one address are a handful of visitors; another address is another`, function () {
    this.timeout(120_000);
    const rand = prng(36);
    const fromOne = new Set<string>();
    for (let i = 0; i < RUNS; i++) {
      const ua = unrecognisedUserAgent(rand);
      fromOne.add(visitorKey("198.51.100.7", ua, deviceOf(ua)));
    }
    // One visitor for all that name no known browser; the parser's loose patterns (a "bada" or "webos"
    // inside a random word) make a rare one look like a browser, and each such string is one more.
    assert.ok(fromOne.size <= 5, `${fromOne.size} visitors`);
    const ua = unrecognisedUserAgent(rand);
    assert.notEqual(visitorKey("198.51.100.7", ua, deviceOf(ua)), visitorKey("198.51.100.8", ua, deviceOf(ua)), "the address still tells people apart");
  });

  it("real, varied browsers behind one address stay distinct people", () => {
    const crowd = realCrowd(200);
    const keys = new Set(crowd.map((ua) => visitorKey("203.0.113.10", ua, deviceOf(ua))));
    assert.equal(keys.size, 200);
    for (const b of BROWSERS) assert.notEqual(deviceOf(b.ua).browser, OTHER, b.ua);
  });
});
