// GS1 keys for tests: one owner per key per host, so each run makes keys no other run has. And GS1's own
// schemas (test/fixtures/gs1/README.md) for what the resolver serves: every linkset and the description file.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { checkDigitOf, primaryKeyDef } from "../../functions/src/gs1/keys";
import { restrictedNumberProblem } from "../../functions/src/gs1/prefixes";

/** A fresh GTIN-14 with its check digit, of a company (not a restricted circulation or coupon number, which the shared host refuses). */
export function newGtin(): string {
  const body = `0${Array.from({ length: 12 }, () => String(randomInt(10))).join("")}`;
  const gtin = body + String(checkDigitOf(body));
  return restrictedNumberProblem(primaryKeyDef("01")!, gtin) ? newGtin() : gtin;
}

const FIXTURES = path.join(__dirname, "..", "fixtures", "gs1");
// GS1's schemas are draft-07 with keywords ajv's strict mode refuses (`@id`, `name`, `decription`): strict
// off; the bytes stay as GS1 published them.
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
let linksetSchema: ValidateFunction | undefined;
let descriptionSchema: ValidateFunction | undefined;
const compiled = (file: string) => ajv.compile(JSON.parse(readFileSync(path.join(FIXTURES, file), "utf8")));

function assertValid(validate: ValidateFunction, body: unknown, what: string): void {
  const errors = validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
  assert.deepEqual(errors, [], `${what} does not validate against GS1's schema: ${errors.join("; ")}\n${JSON.stringify(body, null, 2)}`);
}

/** Fails unless `body` (a parsed linkset) validates against GS1's linkset JSON schema. */
export function assertValidLinkset(body: unknown): void {
  linksetSchema ??= compiled("gs1-linkset-schema.json");
  assertValid(linksetSchema, body, "The linkset");
}

/** Fails unless `body` (a parsed /.well-known/gs1resolver) validates against GS1's description-file schema 1.2.0. */
export function assertValidResolverDescription(body: unknown): void {
  descriptionSchema ??= compiled("resolver-description-file-schema-1.2.0.json");
  assertValid(descriptionSchema, body, "The resolver description");
}

/** Whether `body` validates against GS1's linkset JSON schema (to show the schema refuses what it should). */
export function isValidLinkset(body: unknown): boolean {
  linksetSchema ??= compiled("gs1-linkset-schema.json");
  return linksetSchema(body) as boolean;
}
