// A typed client generated from the live /api/openapi.json (openapi-typescript + openapi-fetch): the
// generated types must type-check a real client, and that client must work against the stack.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { appUrl } from "../helpers/env";
import { createMerchant } from "../helpers/merchants";
import { newClient } from "../helpers/clients";
import { decodePng, fetchPng } from "../helpers/qr";

const ARTIFACTS = path.resolve(__dirname, "..", "..", "test-artifacts");

const CLIENT_SOURCE = `import createClient from "openapi-fetch";
import type { paths } from "./openapi-types";

type Fetch = (request: Request) => Promise<Response>;

export async function makeSandboxCode(baseUrl: string, url: string, fetch?: Fetch) {
  const client = createClient<paths>({ baseUrl, fetch });
  const made = await client.POST("/api/generate-qr-code", { body: { url } });
  const image: string | undefined = made.data?.code.qrImage;
  return { status: made.response.status, image, error: made.error };
}

export async function makeBulkCodes(baseUrl: string, apiKey: string | undefined, urls: string[]) {
  const client = createClient<paths>({ baseUrl, headers: apiKey ? { Authorization: \`Bearer \${apiKey}\` } : {} });
  const made = await client.POST("/api/bulk-qr-codes", { body: { urls } });
  const codes: Array<{ destinationUrl: string; qrImageUrl: string }> | undefined = made.data?.codes;
  const errorCode: string | undefined = made.error?.code;
  return { status: made.response.status, count: made.data?.count, codes, errorCode };
}
`;

/** Type-checks files with the compiler API; returns every diagnostic as a readable line. */
function typeCheck(files: string[]): string[] {
  const program = ts.createProgram(files, {
    noEmit: true,
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : "";
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

describe("openapi client: types generated from /api/openapi.json", function () {
  this.timeout(120_000);

  it("generates types that type-check a client of the sandbox and bulk operations", async () => {
    const res = await fetch(`${appUrl()}/api/openapi.json`);
    assert.equal(res.status, 200);
    const doc = await res.json();
    const { default: openapiTS, astToString } = await import("openapi-typescript");
    const types = astToString(await openapiTS(doc));
    assert.match(types, /"\/api\/generate-qr-code"/);
    assert.match(types, /"\/api\/bulk-qr-codes"/);
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(path.join(ARTIFACTS, "openapi-types.d.ts"), types);
    const client = path.join(ARTIFACTS, "openapi-client.ts");
    writeFileSync(client, CLIENT_SOURCE);
    assert.deepEqual(typeCheck([client]), [], "the generated client type-checks under strict");

    // A wrong body must not type-check: the types carry the document's schema, not `any`.
    const wrong = path.join(ARTIFACTS, "openapi-client-wrong.ts");
    writeFileSync(wrong, `import createClient from "openapi-fetch";\nimport type { paths } from "./openapi-types";\nvoid createClient<paths>({}).POST("/api/bulk-qr-codes", { body: { url: "https://example.com" } });\n`);
    assert.ok(typeCheck([wrong]).length > 0, "a body without urls is a type error");
  });

  it("calls the sandbox and bulk endpoints with openapi-fetch; the codes scan the URLs sent", async () => {
    // The client written (and type-checked) by the test above, loaded as it is.
    const generated = await import(path.join(ARTIFACTS, "openapi-client.ts"));
    const visitor = newClient(); // its own address, so the sandbox's daily quota is its own
    // The body is read whole first: a streamed (chunked) body is not what a browser or curl sends here.
    const viaVisitor = async (req: Request) =>
      visitor.fetch(req.url, { method: req.method, headers: req.headers, body: req.method === "GET" ? undefined : await req.text() });
    const url = `https://example.com/menu?t=${Date.now()}`;
    const made = await generated.makeSandboxCode(appUrl(), url, viaVisitor);
    assert.equal(made.status, 200, JSON.stringify(made.error));
    assert.match(made.image, /^data:image\/png;base64,/);
    assert.equal(decodePng(Buffer.from(made.image.split(",")[1], "base64")).payload, url);

    const merchant = await createMerchant();
    const urls = ["https://example.com/bulk/a", "https://example.com/bulk/b"];
    const bulk = await generated.makeBulkCodes(appUrl(), merchant.apiKey, urls);
    assert.equal(bulk.status, 200, bulk.errorCode);
    assert.equal(bulk.count, 2);
    assert.deepEqual(bulk.codes.map((c: { destinationUrl: string }) => c.destinationUrl), urls);
    for (const [i, c] of bulk.codes.entries()) assert.equal(decodePng(await fetchPng(c.qrImageUrl)).payload, urls[i]);

    // Errors come back typed too: no key is a 401 with the documented JSON error code.
    const refused = await generated.makeBulkCodes(appUrl(), undefined, urls);
    assert.equal(refused.status, 401);
    assert.equal(typeof refused.errorCode, "string");
  });
});
