// Secrets reach only the functions that declare them, as deployed: the emulator hands every secret to
// every function, so these checks stand in for Cloud Run's mounting (core/secrets.ts).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { FUNCTION_SECRETS, SecretNotBoundError, secretValue } from "../../functions/src/core/secrets";
import { sealSecret } from "../../functions/src/webhooks/secrets";

const require = createRequire(import.meta.url);

describe("secrets per function", () => {
  it("each deployed function binds exactly the secrets the table declares for it", () => {
    const functions = require("../../functions/src/index") as Record<string, { __endpoint?: { secretEnvironmentVariables?: Array<{ key: string }> } } | undefined>;
    const deployed = Object.entries(functions).filter(([, fn]) => fn?.__endpoint);
    assert.ok(deployed.length >= 10, `${deployed.length} functions`);
    for (const name of Object.keys(FUNCTION_SECRETS)) assert.ok(functions[name]?.__endpoint, `${name} is a deployed function`);
    for (const [name, fn] of deployed) {
      const bound = (fn!.__endpoint!.secretEnvironmentVariables ?? []).map((s) => s.key).sort();
      assert.deepEqual(bound, [...(FUNCTION_SECRETS[name] ?? [])].sort(), name);
    }
    // The functions that seal or open webhook secrets (create and rotate; deliver) all bind the key.
    for (const name of ["mcp", "consoleApi", "webhookDelivery"]) assert.ok(FUNCTION_SECRETS[name].includes("WEBHOOK_SECRET_KEY"), name);
  });

  it("refuses a read by a function that did not declare the secret, as Cloud Run would leave it unset", () => {
    const saved = process.env.WEBHOOK_SECRET_KEY;
    process.env.WEBHOOK_SECRET_KEY = "local-key";
    try {
      assert.equal(secretValue("WEBHOOK_SECRET_KEY", "mcp"), "local-key");
      assert.throws(() => secretValue("WEBHOOK_SECRET_KEY", "redirect"), (e: unknown) => e instanceof SecretNotBoundError && /not bound to the redirect function/.test(e.message));
      assert.throws(() => secretValue("SANDBOX_IP_SALT", "mcp"), SecretNotBoundError);
    } finally {
      if (saved === undefined) delete process.env.WEBHOOK_SECRET_KEY;
      else process.env.WEBHOOK_SECRET_KEY = saved;
    }
  });

  it("never seals a webhook secret under an empty key", () => {
    const saved = process.env.WEBHOOK_SECRET_KEY;
    delete process.env.WEBHOOK_SECRET_KEY;
    try {
      assert.throws(() => sealSecret("whsec_x", "m1/wh_a"), /WEBHOOK_SECRET_KEY has no value/);
    } finally {
      if (saved !== undefined) process.env.WEBHOOK_SECRET_KEY = saved;
    }
  });
});
