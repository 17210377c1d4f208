// Webhook delivery latency on the local stack: from a scan's 302 (as its client receives it, through the
// front end and Hosting) to the loopback receiver's arrival of the delivery carrying that scan, through the
// Cloud Tasks emulator and the delivery function. Baseline in the same run: the 302 of a code without a
// subscription, next to one with (which queues its delivery before answering).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fmt, percentile, request } from "./measure";

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

async function tool(mcpUrl: string, apiKey: string, name: string, args: unknown): Promise<any> {
  const res = await request("POST", mcpUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }), {
    Authorization: `Bearer ${apiKey}`,
    "Content-Type": "application/json",
  });
  const result = JSON.parse(res.text).result;
  if (!result || result.isError) throw new Error(`${name} failed: ${res.text}`);
  return result.structuredContent;
}

export async function benchWebhooks(urls: { base: string; mcp: string }, apiKey: string, scans = 40) {
  console.log("\n[webhooks] scan 302 → signed delivery at a loopback receiver (Cloud Tasks emulator, delivery function)");
  const arrivals = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c)).on("end", () => {
      const at = performance.now();
      const event = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      for (const s of event.data?.scans ?? []) if (!arrivals.has(s.uniqueQRCodeID)) arrivals.set(s.uniqueQRCodeID, at);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const plain: number[] = [];
  const subscribed: number[] = [];
  const delivered: number[] = [];
  let lost = 0;
  try {
    const scan = async (id: string) => {
      const t = performance.now();
      const res = await request("GET", `${urls.base}/qr/${id}`, undefined, { "User-Agent": PHONE });
      if (res.status !== 302) throw new Error(`scan answered ${res.status}`);
      return { sent: t, answered: performance.now() };
    };
    const make = (title: string, campaign: string) => tool(urls.mcp, apiKey, "svc.qr.create", { title, destinationUrl: "https://example.com/wh", dynamic: true, campaign });
    const webhook = await tool(urls.mcp, apiKey, "svc.webhook.create", { url: receiverUrl, events: ["scan.created"], campaigns: ["bench-hooked"] });
    // One code per scan, so each delivery is matched to its scan by uniqueQRCodeID; codes made first.
    const hooked = [];
    const unhooked = [];
    for (let i = 0; i < scans; i++) {
      hooked.push(await make(`hooked ${i}`, "bench-hooked"));
      unhooked.push(await make(`plain ${i}`, "bench-plain"));
    }
    await scan(hooked[0].uniqueQRCodeID); // warm both functions (not measured)
    await new Promise((r) => setTimeout(r, 2000));
    for (let i = 1; i < scans; i++) {
      const p = await scan(unhooked[i].uniqueQRCodeID);
      plain.push(p.answered - p.sent);
      const id = hooked[i].uniqueQRCodeID;
      const h = await scan(id);
      subscribed.push(h.answered - h.sent);
      const deadline = performance.now() + 15_000;
      while (!arrivals.has(id) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      if (arrivals.has(id)) delivered.push(arrivals.get(id)! - h.answered);
      else lost++;
    }
    await tool(urls.mcp, apiKey, "svc.webhook.delete", { webhookId: webhook.webhookId });
  } finally {
    receiver.close();
  }
  const line = (label: string, xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    console.log(`  ${label.padEnd(44)} p50 ${fmt(percentile(s, 50), 0).padStart(5)} ms   p95 ${fmt(percentile(s, 95), 0).padStart(5)} ms   (n=${s.length})`);
  };
  line("302, code without a subscription (baseline)", plain);
  line("302, code with a subscription", subscribed);
  line("302 → receiver (delivery latency)", delivered);
  if (lost) console.log(`  ${lost} scans not delivered within 15 s`);
}
