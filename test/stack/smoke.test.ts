// The deploy check (scripts/smoke.ts, docs/deploy.md) run inside the stack tier, against this run's
// firebase-tools stack rather than a second stack of its own: the site API, the caller's address through
// Hosting and at the function URL, a sandbox code that scans, a forged X-Forwarded-For, MCP, OAuth
// discovery, and a dynamic code's redirect counted with a place and its hosted image.
import { runChecks } from "../../scripts/smoke";
import { seedDemo } from "../../scripts/lib/seed";
import { baseUrl, functionsUrl } from "../helpers/env";

describe("stack: the smoke check", function () {
  this.timeout(120_000);
  it("passes every check against the local stack", async () => {
    const { apiKey } = await seedDemo();
    await runChecks(baseUrl(), functionsUrl(), apiKey, true);
  });
});
