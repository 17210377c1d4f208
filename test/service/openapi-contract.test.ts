// The served contract against the real stack: every documented operation is sent its documented example
// through Hosting (credentials and the ids of a real code filled in), and what comes back must be what the
// document says: a documented status, the documented media type, a body that validates against the
// documented schema. One error per operation (no credential, or an unknown query parameter) must also
// carry a documented status and one of the error codes listed for it.
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { baseUrl } from "../helpers/env";
import { newClient } from "../helpers/clients";
import { createMerchant, signUp, type TestMerchant, type TestUser } from "../helpers/merchants";
import { newGtin } from "../helpers/gs1";
import { callTool, toolResult } from "../helpers/rpc";
import { contractChecker } from "../helpers/contract";
import { TestDns } from "../helpers/dns";

const METHODS = ["get", "post", "delete"] as const;

interface Operation {
  method: string;
  path: string;
  server: string;
  op: any;
}

interface Fixtures {
  merchant: TestMerchant;
  scanner: TestUser;
  code: { merchantId: string; codeId: string; uniqueQRCodeID: string; imagePath: string; token: string };
  /** A catalogue job of the merchant's, for the job routes' path. */
  jobId: string;
  /** A GS1 item of the merchant's, for the item routes' path. */
  itemId: string;
  /** Two branded domains of the merchant's: one the example deletes, one every other domain route reads. */
  domainId: string;
  doomedDomainId: string;
  /** The loopback DNS server a domain's check asks (X-Test-Dns): no example reaches any other. */
  dns: string;
}

const dns = new TestDns();

async function addDomain(merchant: TestMerchant, label: string): Promise<string> {
  const res = await fetch(`${baseUrl()}/api/domains`, {
    method: "POST",
    headers: { Authorization: `Bearer ${merchant.apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ hostname: `${label}.m${merchant.merchantId.slice(0, 8).toLowerCase()}.example.com` }),
  });
  const body = (await res.json()) as { domainId: string };
  if (res.status !== 201) throw new Error(`domain not added: ${JSON.stringify(body)}`);
  return body.domainId;
}

/** The request an operation's example makes, with this run's credential and code. */
function exampleRequest({ method, path, server, op }: Operation, f: Fixtures, withCredential = true): { url: string; init: RequestInit } {
  const headers: Record<string, string> = path.startsWith("/api/domains") ? { "X-Test-Dns": f.dns } : {};
  const query = new URLSearchParams();
  let filled = path;
  for (const p of op.parameters ?? []) {
    let value = p.example;
    if (p.in === "path") {
      if (p.name === "merchantId") value = f.code.merchantId;
      if (p.name === "file") value = `${f.code.codeId}.${String(p.example).split(".").pop()}`;
      if (p.name === "imagePath") value = f.code.imagePath;
      if (p.name === "jobId") value = f.jobId;
      if (p.name === "itemId") value = f.itemId;
      if (p.name === "domainId") value = method === "DELETE" ? f.doomedDomainId : f.domainId;
      if (p.name === "codeId") value = f.code.codeId;
      filled = filled.replace(`{${p.name}}`, p.name === "imagePath" ? value : encodeURIComponent(value));
    } else if (p.in === "query" && value !== undefined) {
      query.set(p.name, p.name === "token" ? f.code.token : String(value));
    } else if (p.in === "header" && value !== undefined) {
      headers[p.name] = `${value}-${f.merchant.merchantId}`;
    }
  }
  const security: Array<Record<string, string[]>> = op.security ?? [];
  if (withCredential && security.length) {
    headers.Authorization = `Bearer ${security.some((s) => "apiKey" in s) ? f.merchant.apiKey : f.scanner.idToken}`;
  }
  let body: string | undefined;
  const [bodyType, bodyMedia] = Object.entries<any>(op.requestBody?.content ?? {})[0] ?? [];
  const example = bodyMedia?.examples?.example.value;
  if (bodyType === "application/x-www-form-urlencoded") {
    headers["Content-Type"] = bodyType;
    body = new URLSearchParams(example ?? {}).toString();
  } else if (bodyType) {
    headers["Content-Type"] = "application/json";
    // The code an example names is this run's (the report's `code` is a scan URL on the documented host).
    const sent = example && "uniqueQRCodeID" in example ? { ...example, uniqueQRCodeID: f.code.uniqueQRCodeID } : op.operationId === "reportCode" ? { ...example, code: f.code.uniqueQRCodeID } : example;
    body = JSON.stringify(sent ?? {});
  }
  const search = query.size ? `?${query}` : "";
  return { url: `${server}${filled}${search}`, init: { method: op.method ?? "GET", headers, body } };
}

describe("OpenAPI contract (through Hosting)", function () {
  this.timeout(120_000);
  let doc: any;
  let operations: Operation[];
  let fixtures: Fixtures;
  let check: ReturnType<typeof contractChecker>;
  const client = newClient(); // its own address: the sandbox's per-address quota is this test's alone

  after(() => dns.close());

  before(async () => {
    const res = await fetch(`${baseUrl()}/api/openapi.json`);
    assert.equal(res.status, 200);
    doc = await res.json();
    check = contractChecker(doc);
    operations = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path, server: (item.servers ?? doc.servers)[0].url, op: { ...item[m], method: m.toUpperCase() } })),
    );
    const merchant = await createMerchant();
    const created = toolResult(await callTool("svc.qr.create", { title: "Contract", destinationUrl: "https://example.com/contract", dynamic: true }, merchant.apiKey));
    const image = new URL(created.qrImageUrl);
    fixtures = {
      merchant,
      scanner: await signUp(),
      code: {
        merchantId: merchant.merchantId,
        codeId: created.codeId,
        uniqueQRCodeID: created.uniqueQRCodeID,
        imagePath: image.pathname.replace(/^\/img\//, ""),
        token: image.searchParams.get("token") ?? "",
      },
      jobId: toolResult(await callTool("svc.job.start", { format: "json", items: [{ destinationUrl: "https://example.com/contract-job" }] }, merchant.apiKey)).jobId,
      domainId: await addDomain(merchant, "contract"),
      doomedDomainId: await addDomain(merchant, "contract-doomed"),
      dns: await dns.start(),
      itemId: toolResult(await callTool("svc.gs1.set_item", { value: newGtin(), links: [{ linkType: "gs1:pip", href: "https://example.com/contract-item", title: "Item", isDefault: true }] }, merchant.apiKey)).itemId,
    };
  });

  it("is a valid OpenAPI 3.1 document with every public surface in it", async () => {
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    assert.deepEqual(doc.tags.map((t: any) => t.name), ["App scans", "Bulk", "Discovery", "Files", "OAuth", "Sandbox"]);
    assert.ok(operations.length >= 13, `${operations.length} operations`);
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith("/api/console")), "the console API is internal");
  });

  it("answers each operation's example as documented", async () => {
    for (const operation of operations) {
      const what = `${operation.method} ${operation.path}`;
      const { url, init } = exampleRequest(operation, fixtures);
      const res = await client.fetch(url, init);
      const documented = operation.op.responses[String(res.status)];
      const text = Buffer.from(await res.arrayBuffer());
      const bodyMedia: any = operation.op.requestBody && Object.values(operation.op.requestBody.content)[0];
      if (operation.op.operationId === "exchangeOAuthToken") {
        // Its example shows the shape of a redemption, but only the authorization page issues a live code:
        // sent as is, the example code must be refused as documented.
        assert.equal(res.status, 400, `${what}: ${text.toString("utf8", 0, 300)}`);
        const refusal = JSON.parse(text.toString("utf8"));
        assert.equal(refusal.error, "invalid_grant");
        assert.equal(check(documented.content["application/json"].schema, refusal), undefined, what);
        continue;
      }
      if (operation.op.operationId === "receiveShopifyWebhook") {
        // Its example is what Shopify sends, signed by a connected shop's secret: sent as is by a reader, with
        // no shop connected and no signature, it must be refused as documented, writing nothing.
        assert.equal(res.status, 401, `${what}: ${text.toString("utf8", 0, 300)}`);
        assert.ok(documented?.content, `${what}: the 401 is documented`);
        assert.equal(check(documented.content["application/json"].schema, JSON.parse(text.toString("utf8"))), undefined, what);
        continue;
      }
      if (bodyMedia && !bodyMedia.examples) {
        // No request a reader could send as is: the empty request must be refused as documented.
        assert.ok(documented && res.status >= 400 && res.status < 500, `${what}: ${res.status} ${text.toString("utf8", 0, 300)}`);
        assert.equal(check(documented.content["application/json"].schema, JSON.parse(text.toString("utf8"))), undefined, what);
        continue;
      }
      assert.ok(documented && res.status < 300, `${what}: ${res.status} ${text.toString("utf8", 0, 300)}`);
      if (!documented.content) {
        assert.equal(text.length, 0, `${what}: no body`);
        continue;
      }
      const [mediaType, media] = Object.entries<any>(documented.content)[0];
      assert.equal((res.headers.get("content-type") ?? "").split(";")[0], mediaType, what);
      if (mediaType === "application/json") assert.equal(check(media.schema, JSON.parse(text.toString("utf8"))), undefined, what);
      else assert.ok(text.length > 100, `${what}: a file`);
      for (const header of Object.keys(documented.headers ?? {})) {
        if (header.startsWith("X-RateLimit-")) assert.match(res.headers.get(header) ?? "", /^\d+$/, `${what}: ${header}`);
      }
    }
  });

  it("answers a documented error code for a request without its credential or with an unknown parameter", async () => {
    let checked = 0;
    for (const operation of operations) {
      const what = `${operation.method} ${operation.path}`;
      const secured = (operation.op.security ?? []).length > 0;
      const takesQuery = (operation.op.parameters ?? []).some((p: any) => p.in === "query");
      if (!secured && !takesQuery) continue;
      const { url, init } = exampleRequest(operation, fixtures, false);
      const res = await client.fetch(secured ? url : `${url}${url.includes("?") ? "&" : "?"}zz_unknown=1`, init);
      const body: any = await res.json();
      const documented = operation.op.responses[String(res.status)];
      assert.ok(documented, `${what}: ${res.status} is documented`);
      const schema = documented.content["application/json"].schema;
      assert.equal(check(schema, body), undefined, what);
      assert.ok(schema.allOf[1].properties.code.enum.includes(body.code), `${what}: ${body.code} is listed`);
      assert.equal(body.code, secured ? "NO_AUTH" : "UNKNOWN_QUERY_PARAMETER", what);
      checked++;
    }
    assert.ok(checked >= 7, `${checked} operations`);
  });
});
