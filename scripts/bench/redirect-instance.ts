// One cold redirect instance for `npm run bench`: loads the compiled redirect function (as deployed, on
// the Node that runs this file), serves, and answers its first /qr/ request. Prints JSON timings and
// resident memory. Argument: a uniqueQRCodeID to scan, and optionally an IPv6 client to scan as.
import http from "node:http";
import type { AddressInfo } from "node:net";

const started = performance.now();
const { redirectApp } = require("../../functions/lib/redirect/app") as { redirectApp: http.RequestListener };
const loaded = performance.now();
const [id, ipv6Client] = process.argv.slice(2);

const get = (port: number, forwardedFor: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: `/qr/${id}`, headers: { "User-Agent": "Mozilla/5.0 (bench phone)", "X-Forwarded-For": forwardedFor } }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      })
      .on("error", reject);
  });

const server = http.createServer(redirectApp).listen(0, "127.0.0.1", () =>
  void measure().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  }),
);

async function measure(): Promise<void> {
  const port = (server.address() as AddressInfo).port;
  const status = await get(port, "73.1.2.3");
  const firstRedirect = performance.now();
  const rssAfterFirst = process.memoryUsage().rss;
  let rssBothFamilies: number | undefined;
  if (ipv6Client) {
    await get(port, ipv6Client);
    rssBothFamilies = process.memoryUsage().rss;
  }
  process.stdout.write(JSON.stringify({ status, loadMs: loaded - started, firstRedirectMs: firstRedirect - started, rssAfterFirst, rssBothFamilies }) + "\n");
  server.close();
  process.exit(0);
}
