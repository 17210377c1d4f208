// Secrets reach only the functions that declare them, as deployed: the emulator hands every secret to
// every function, so these checks stand in for Cloud Run's mounting (core/secrets.ts).
import assert from "node:assert/strict";
import { FUNCTION_SECRETS, SecretNotBoundError, secretValue } from "../../functions/src/core/secrets";
import { sealSecret } from "../../functions/src/webhooks/secrets";
import { openTask, parseKeyRing, sealTask, TASK_SEAL_TTL_MS } from "../../functions/src/core/taskSeal";

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

describe("task seals", () => {
  const KEY = "a-task-signing-key-of-deliveries-0001";
  const JOB_KEY = "a-task-signing-key-of-catalogue-jobs-01";
  const NOW = new Date("2026-11-29T10:00:00Z");
  const task = { merchantId: "m_1", webhookId: "wh_a", deliveryId: "msg_1", type: "code.updated", count: 2, body: '{"a":1}', progress: { chunksDone: 1, created: 2 } };
  const seal = (data: object = task) => sealTask(data, "webhookDelivery", NOW, KEY);
  const open = (data: unknown, key = KEY) => openTask(data, "webhookDelivery", NOW, key);

  it("opens what the service sealed, whatever the order of its keys, and gives it back without the seal, purpose or expiry", () => {
    const sealed = seal();
    assert.match(sealed.seal, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(open(sealed), task);
    const reordered = JSON.parse(JSON.stringify({ seal: sealed.seal, exp: sealed.exp, kid: sealed.kid, purpose: sealed.purpose, progress: { created: 2, chunksDone: 1 }, body: task.body, count: 2, type: task.type, deliveryId: "msg_1", webhookId: "wh_a", merchantId: "m_1" }));
    assert.deepEqual(open(reordered), task);
  });

  it("refuses anything else: no seal, a changed field, another key, a seal moved to another task, not an object", () => {
    const sealed = seal();
    assert.equal(open(task), null);
    assert.equal(open({ ...sealed, count: 3 }), null);
    assert.equal(open({ ...sealed, progress: { chunksDone: 1, created: 3 } }), null);
    assert.equal(open({ ...sealed, extra: true }), null);
    assert.equal(open(sealed, "another-signing-key-of-the-same-length"), null);
    assert.equal(open({ ...task, merchantId: "m_2", seal: sealed.seal, purpose: sealed.purpose, kid: sealed.kid, exp: sealed.exp }), null);
    assert.equal(open({ ...sealed, seal: sealed.seal.slice(0, -1) }), null);
    for (const odd of [null, undefined, "text", 42, [sealed], { seal: 1 }]) assert.equal(open(odd), null, JSON.stringify(odd));
  });

  it("binds a seal to its purpose and expires it (review 4, I1)", () => {
    const sealed = seal();
    // Sealed for deliveries: not a job step, whatever its fields say; relabelled, the seal no longer matches.
    assert.equal(openTask(sealed, "catalogueJob", NOW, KEY), null);
    assert.equal(openTask({ ...sealed, purpose: "catalogueJob" }, "catalogueJob", NOW, KEY), null);
    // Valid until its queue would have given up on it, then refused; a later expiry written in is refused too.
    assert.equal(sealed.exp, NOW.getTime() + TASK_SEAL_TTL_MS.webhookDelivery);
    assert.deepEqual(openTask(sealed, "webhookDelivery", new Date(sealed.exp - 1), KEY), task);
    assert.equal(openTask(sealed, "webhookDelivery", new Date(sealed.exp), KEY), null);
    assert.equal(openTask({ ...sealed, exp: sealed.exp + 3_600_000 }, "webhookDelivery", new Date(sealed.exp), KEY), null);
    // Each purpose has its own key: the same payload seals differently.
    assert.notEqual(sealTask(task, "catalogueJob", NOW, KEY).seal, sealed.seal);
  });
  it("seals each purpose under its own secret: a delivery's seal opens under no job key, and the reverse", () => {
    const delivery = sealTask(task, "webhookDelivery", NOW, KEY);
    const step = sealTask({ merchantId: "m_1", jobId: "job_0123456789abcdef0123", step: "chunk" }, "catalogueJob", NOW, JOB_KEY);
    assert.ok(openTask(delivery, "webhookDelivery", NOW, KEY));
    assert.ok(openTask(step, "catalogueJob", NOW, JOB_KEY));
    // The other purpose's secret opens neither, relabelled or not; nor does the right purpose under the other secret.
    assert.equal(openTask(delivery, "catalogueJob", NOW, JOB_KEY), null);
    assert.equal(openTask({ ...delivery, purpose: "catalogueJob" }, "catalogueJob", NOW, JOB_KEY), null);
    assert.equal(openTask(step, "webhookDelivery", NOW, KEY), null);
    assert.equal(openTask(step, "catalogueJob", NOW, KEY), null, "a job step sealed by whoever holds only the delivery secret is refused");
    // Each function reads its purposes' secrets by name: the job secret is not the redirect's to read.
    assert.throws(() => secretValue("TASK_KEYS_CATALOGUE_JOB", "redirect"), SecretNotBoundError);
    assert.throws(() => secretValue("TASK_KEYS_CATALOGUE_JOB", "sandbox"), SecretNotBoundError);
    assert.equal(FUNCTION_SECRETS.oauth, undefined, "oauth queues no task and holds no task key");
  });

  it("rotates: the first key of the ring seals and names itself; an older one opens its seals until its date, then not", () => {
    const OLD = "old-delivery-key-0123456789abcdef";
    const NEW = "new-delivery-key-0123456789abcdef";
    const before = sealTask(task, "webhookDelivery", NOW, OLD); // a bare value: key id 0
    assert.equal(before.kid, "0");
    const retire = new Date(NOW.getTime() + TASK_SEAL_TTL_MS.webhookDelivery);
    const ring = `1:${NEW},0:${OLD}@${retire.toISOString()}`;
    const after = sealTask(task, "webhookDelivery", NOW, ring);
    assert.equal(after.kid, "1");
    assert.notEqual(after.seal, before.seal);
    // Queued before the rotation: still opens during the window, not from its date on (even if the seal has not expired).
    assert.deepEqual(openTask(before, "webhookDelivery", new Date(retire.getTime() - 1), ring), task);
    assert.equal(openTask({ ...before, exp: retire.getTime() + 60_000 }, "webhookDelivery", new Date(retire.getTime() - 1), ring), null, "its expiry cannot be moved");
    assert.equal(openTask(sealTask(task, "webhookDelivery", new Date(retire.getTime() - 10), OLD), "webhookDelivery", retire, ring), null, "retired at its date");
    assert.deepEqual(openTask(after, "webhookDelivery", NOW, ring), task);
    // The old key alone no longer opens the new seals; a seal naming a key id the ring lacks, or another id, is refused.
    assert.equal(openTask(after, "webhookDelivery", NOW, OLD), null);
    assert.equal(openTask({ ...before, kid: "1" }, "webhookDelivery", NOW, ring), null);
    assert.equal(openTask({ ...after, kid: "7" }, "webhookDelivery", NOW, ring), null);
    // Once the old key is dropped from the ring, its seals are gone too.
    assert.equal(openTask(before, "webhookDelivery", NOW, `1:${NEW}`), null);
  });

  it("refuses a malformed ring with a sentence naming the secret, never its value", () => {
    const bad = [
      ["", /has no value/],
      ["1:short", /shorter than/],
      [`1:${KEY},0:${JOB_KEY}`, /needs @date/],
      [`1:${KEY}@2026-12-01T00:00:00Z`, /first key seals/],
      [`1:${KEY},1:${JOB_KEY}@2026-12-01T00:00:00Z`, /share an id/],
      [`1:${KEY},0:${JOB_KEY}@someday`, /no readable date/],
    ] as const;
    for (const [value, why] of bad) {
      assert.throws(() => parseKeyRing(value, "TASK_KEYS_WEBHOOK_DELIVERY"), (e: Error) => why.test(e.message) && e.message.startsWith("TASK_KEYS_WEBHOOK_DELIVERY") && !e.message.includes(KEY), value);
    }
    assert.deepEqual(parseKeyRing(` 2:${KEY}, 1:${JOB_KEY}@2026-12-01T00:00:00Z `).map((k) => [k.id, k.until]), [["2", null], ["1", Date.parse("2026-12-01T00:00:00Z")]]);
  });
});
