// Print files are bounded per instance: N+1 concurrent 4096 px renders of N+1 different designed codes
// leave N drawing and one refused at once with 503 and Retry-After, and the instance stays under the
// images function's memory. Served in this process (one instance, as the gate is per instance), against
// the emulators the rest of the suite uses.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { callTool, toolResult } from "../helpers/rpc";
import { createMerchant, type TestMerchant } from "../helpers/merchants";
import { sampleLogo } from "../helpers/designs";
import { decodePng } from "../helpers/qr";
import { imagesApp } from "../../functions/src/images/app";
import { RENDERS_IN_FLIGHT_MAX, rendersInFlight } from "../../functions/src/images/renderGate";

const FUNCTION_MEMORY_BYTES = 1024 ** 3; // functions/src/index.ts: images, memory "1GiB"
/** An images instance's own size before it draws anything (Node, express, sharp, the handlers): generous. */
const FUNCTION_IDLE_BYTES = 256 * 2 ** 20;

describe("render gate: bounded print renders per instance", function () {
  this.timeout(180_000);
  let merchant: TestMerchant;
  let server: Server;
  let base: string;
  before(async () => {
    merchant = await createMerchant();
    server = createServer(imagesApp).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it(`${RENDERS_IN_FLIGHT_MAX + 1} concurrent 4096 px designed renders: ${RENDERS_IN_FLIGHT_MAX} drawn, one 503 with Retry-After, memory under 1 GiB`, async () => {
    const logo = (await sampleLogo()).toString("base64");
    const codes = [];
    for (let i = 0; i <= RENDERS_IN_FLIGHT_MAX; i++) {
      const design = { foreground: "#14532D", background: "#F0FDF4", moduleStyle: "dots", eyeStyle: "circle", logo: { data: logo, mediaType: "image/png" } };
      codes.push(toolResult(await callTool("svc.qr.create", { title: `big ${i}`, destinationUrl: `https://example.com/big-${i}`, design }, merchant.apiKey)));
    }
    const pathOf = (code: { qrSvgUrl: string }) => {
      const url = new URL(code.qrSvgUrl.replace("/img/svg/", "/img/png/").replace(".svg?", ".png?"));
      return `${url.pathname}${url.search}&px=4096`;
    };
    // What the renders add to this process (the function's own idle size is well under the rest of its 1 GiB).
    const baseline = process.memoryUsage().rss;
    let peakRss = baseline;
    let peakInFlight = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      peakInFlight = Math.max(peakInFlight, rendersInFlight());
    }, 10);
    const answers = await Promise.all(
      codes.map(async (code) => {
        const res = await fetch(`${base}${pathOf(code)}`);
        return { status: res.status, retryAfter: res.headers.get("retry-after"), body: Buffer.from(await res.arrayBuffer()), code };
      }),
    );
    clearInterval(sampler);
    const drawn = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 503);
    assert.equal(drawn.length, RENDERS_IN_FLIGHT_MAX, answers.map((a) => a.status).join(", "));
    assert.equal(refused.length, 1);
    assert.equal(refused[0].retryAfter, "1");
    assert.equal(JSON.parse(refused[0].body.toString()).code, "UNAVAILABLE");
    assert.equal(peakInFlight, RENDERS_IN_FLIGHT_MAX, "never more than the gate's slots at once");
    for (const a of drawn) assert.equal(a.body.readUInt32BE(16), 4096, "each answer is the 4096 px file"); // IHDR width
    const one = decodePng(drawn[0].body); // the service decodes every designed render before answering; one here proves it
    assert.equal(one.payload, drawn[0].code.destinationUrl);
    const added = peakRss - baseline;
    console.log(`      ${RENDERS_IN_FLIGHT_MAX} concurrent 4096 px renders (and one refusal) added ${Math.round(added / 2 ** 20)} MB to this process (baseline ${Math.round(baseline / 2 ** 20)} MB)`);
    assert.ok(added < FUNCTION_MEMORY_BYTES - FUNCTION_IDLE_BYTES, `renders added ${Math.round(added / 2 ** 20)} MB`);
    // The refused caller retries after a second and gets its file.
    const again = await fetch(`${base}${pathOf(refused[0].code)}`);
    assert.equal(again.status, 200);
    assert.equal(rendersInFlight(), 0, "every slot is given back");
  });
});
