import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { eventually } from "../helpers/poll";
import { assertPhoneReadyAndAccessible, openView, PHONE, DESKTOP, screenshot, signedInSession } from "./harness";

describe("merchant console: Settings → Webhooks", function () {
  this.timeout(180_000);
  const session = signedInSession();
  let page: Page;
  let server: Server;
  const received: Array<{ id: string; verified: boolean }> = [];
  let secret = "";
  let failFirst = 1;
  before(async () => {
    page = session.page;
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c)).on("end", () => {
        let verified = false;
        try {
          new Webhook(secret).verify(Buffer.concat(chunks).toString("utf8"), req.headers as Record<string, string>);
          verified = true;
        } catch {
          verified = false;
        }
        received.push({ id: String(req.headers["webhook-id"]), verified });
        if (failFirst-- > 0) res.writeHead(500, { "Content-Type": "text/plain" }).end("Receiver busy: try again later");
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  });
  after(() => server.close());

  async function refreshUntil(text: RegExp): Promise<string> {
    const rows = await eventually(
      async () => {
        await page.click("#refresh-log");
        return page.locator("#delivery-rows tr").allTextContents().catch(() => [] as string[]);
      },
      (shown) => shown.some((r) => text.test(r)),
      { timeoutMs: 15_000, intervalMs: 250, what: `the delivery log showing ${text}` },
    );
    return rows.join("\n");
  }

  it("adds an endpoint (secret shown once), sends a test that is retried, shows the log and redelivers", async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    await openView(page, "#/settings", "#webhooks");
    await page.fill("#webhook-url", url);
    await page.click("#add-webhook");
    const secretText = (await page.locator("#webhook-secret").textContent())!;
    assert.match(secretText, /^whsec_/);
    secret = secretText;
    const row = page.locator("#webhook-rows tr", { hasText: url });
    assert.match((await row.textContent())!, /scan\.created, code\.created, code\.updated, code\.published.*active/);
    await row.getByRole("button", { name: "Send test" }).click();
    const log = await refreshUntil(/succeeded/);
    assert.match(log, /succeeded\s*2\s*204/, "first attempt answered 500, the retry 204");
    assert.equal(received.length, 2);
    assert.equal(received[0].id, received[1].id);
    assert.ok(received.every((r) => r.verified));
    // Every kept attempt of the delivery, with what the receiver answered each time.
    await page.locator("#delivery-rows tr").first().getByRole("button", { name: /^Attempts of / }).click();
    await page.waitForSelector("#attempt-rows tr");
    const attempts = await page.$$eval("#attempt-rows tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    assert.deepEqual(attempts.map((a) => [a[0], a[2]]), [["1", "500"], ["2", "204"]]);
    assert.match(attempts[0][4]!, /Receiver busy: try again later/);
    await screenshot(page, "webhooks-desktop");
    await page.locator("#delivery-rows tr").first().getByRole("button", { name: /Redeliver/ }).click();
    await eventually(() => received.length, (n) => n >= 3, { timeoutMs: 12_000, what: "the redelivery" });
    assert.equal(received.length, 3);
    assert.equal(received[2].id, received[0].id, "a redelivery keeps its webhook-id");
    assert.match(await refreshUntil(/succeeded\s*3\s*204/), /succeeded/);
    await page.setViewportSize(PHONE);
    await assertPhoneReadyAndAccessible(page, "settings with webhooks");
    await page.setViewportSize(DESKTOP);
  });
});
