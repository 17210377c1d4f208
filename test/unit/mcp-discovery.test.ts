// The registry's server.json (repo root) against the registry's published schema, and the server card
// against the draft server-card schema; the two must tell the same story. Vendored schemas (test/fixtures):
// registry-server.schema.json is https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json
// (modelcontextprotocol/registry, MIT); server-card.schema.json is schema.json of
// github.com/modelcontextprotocol/experimental-ext-server-card at 8924e08 (Apache-2.0).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import { Ajv2020 } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { serverCard } from "../../functions/src/mcp/discovery";
import { serverName, SERVER_INFO } from "../../functions/src/mcp/identity";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../../functions/src/mcp/era2026";

const root = join(__dirname, "..", "..");
const json = (path: string): any => JSON.parse(readFileSync(join(root, path), "utf8"));

function errorsOf(validate: { errors?: unknown }): string {
  return JSON.stringify(validate.errors, null, 1);
}

describe("MCP discovery documents", () => {
  const serverJson: Record<string, any> = json("server.json");

  it("server.json validates against the registry's published schema (2025-12-11)", () => {
    const schema = json("test/fixtures/registry-server.schema.json");
    assert.equal(serverJson.$schema, schema.$id);
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    assert.ok(validate(serverJson), errorsOf(validate));
    // The schema does refuse what it should: a name without its namespace.
    assert.equal(validate({ ...serverJson, name: "svc-mcp" }), false);
  });

  it("the server card validates against the draft server-card schema", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema(json("test/fixtures/server-card.schema.json"), "card");
    const validate = ajv.getSchema("card#/$defs/ServerCard")!;
    const card = serverCard();
    assert.ok(validate(card), errorsOf(validate));
    assert.equal(validate({ ...card, description: "x".repeat(101) }), false, "descriptions are at most 100 characters");
  });

  it("server.json and the card agree: name rule, title, description, version, transport, versions' source", () => {
    const card = serverCard() as any;
    const project = json(".firebaserc").projects.default;
    assert.equal(serverJson.name, serverName(`https://${project}.web.app`));
    assert.equal(serverName("https://qr.example.com"), "com.example.qr/svc-mcp");
    for (const key of ["title", "description", "version"]) assert.equal(serverJson[key], card[key], key);
    assert.equal(card.version, SERVER_INFO.version, "the card's version is the serverInfo version");
    assert.equal(serverJson.remotes[0].type, card.remotes[0].type);
    assert.equal(new URL(serverJson.remotes[0].url.replace("{app_host}", "h")).pathname, new URL(card.remotes[0].url).pathname);
    assert.deepEqual(card.remotes[0].supportedProtocolVersions, [...SUPPORTED_PROTOCOL_VERSIONS]);
    assert.deepEqual(serverJson.remotes[0].headers.map((h: any) => h.name), card.remotes[0].headers.map((h: any) => h.name));
  });
});
