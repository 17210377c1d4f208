// QR rendering and code creation figures, each next to a baseline measured in the same run.
import type { AddressInfo } from "node:net";
import { createServer, type RequestListener, type Server } from "node:http";
import QRCode from "qrcode";
import { renderFramedPng, renderPlainPng, warmFrames } from "../../functions/src/qr/render";
import { BOOST_FRAMES, TEMPLATES } from "../../functions/src/qr/frames";
import { mcpApp } from "../../functions/src/mcp/app";
import { getConfig } from "../../functions/src/core/config";
import { bulkApp } from "../../functions/src/bulk/app";
import { fmt, medianMs, post } from "./measure";

const URL_SAMPLE = "https://shop.example.com/menu?table=12&utm_source=qr&utm_campaign=spring";

export async function benchRendering() {
  console.log("\n[qr] PNG rendering (median of many runs, same payload family)");
  let i = 0;
  const baseline = await medianMs(60, () => QRCode.toBuffer(`${URL_SAMPLE}&n=${i++}`, { width: 512 }));
  const ours = await medianMs(2000, () => renderPlainPng(`${URL_SAMPLE}&n=${i++}`));
  console.log(`  qrcode.toBuffer, 512 px, default options (baseline)  ${fmt(baseline, 3)} ms`);
  console.log(`  svc plain PNG, 512 px                                ${fmt(ours, 3)} ms   ratio ${fmt(baseline / ours, 1)}x faster (goal >= 20x, <= 1 ms)`);
  const frames = [...TEMPLATES, ...BOOST_FRAMES];
  const t = performance.now();
  await warmFrames(frames);
  console.log(`  frame canvases drawn and quantized once per instance  ${fmt(performance.now() - t, 1)} ms for ${frames.length} frames`);
  for (const frame of frames) {
    const framed = await medianMs(100, () => renderFramedPng(`${URL_SAMPLE}&n=${i++}`, frame));
    console.log(`  framed 1024 px PNG, ${frame.padEnd(20)}            ${fmt(framed, 2)} ms (goal <= 8 ms)`);
  }
  await (await import("./designs")).benchDesigns();
}

function listen(handler: RequestListener): Promise<{ server: Server; origin: string }> {
  return new Promise((resolve) => {
    const server = createServer(handler).listen(0, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

export async function benchCreation(apiKey: string) {
  console.log("\n[qr] code creation against the Firestore emulator and the image store (sequential calls, median)");
  const mcp = await listen(mcpApp);
  const bulk = await listen(bulkApp as unknown as RequestListener);
  const headers = { "Content-Type": "application/json", Authorization: `Bearer ${apiKey}` };
  let n = 0;
  const createOne = async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "svc.qr.create", arguments: { title: "bench", destinationUrl: `${URL_SAMPLE}&n=${n++}` } },
    });
    // As behind Firebase Hosting, which names the public host it was called at (the tool server checks it).
    const res = await post(`${mcp.origin}/api/mcp`, body, { ...headers, "X-Forwarded-Host": new URL(getConfig().appUrl).host });
    if (res.status !== 200 || !res.text.includes("qrImageUrl")) throw new Error(res.text);
  };
  const bulk50 = async () => {
    const urls = Array.from({ length: 50 }, () => `${URL_SAMPLE}&n=${n++}`);
    const res = await post(`${bulk.origin}/api/bulk-qr-codes`, JSON.stringify({ urls }), headers);
    if (res.status !== 200) throw new Error(res.text);
  };
  await medianMs(5, createOne);
  await medianMs(2, bulk50);
  const single = await medianMs(40, createOne);
  const batch = await medianMs(15, bulk50);
  console.log(`  one svc.qr.create call (baseline)   ${fmt(single)} ms`);
  console.log(`  one bulk call of 50 URLs            ${fmt(batch)} ms   ratio ${fmt(batch / single, 2)}x a single create (goal <= 5x); ${fmt(batch / 50)} ms per code`);
  mcp.server.close();
  bulk.server.close();
}
