// GS1 items, the workspace's and the operator's side: links attached from a menu code or a listing
// (gs1/model.ts, gs1/sources.ts) and the company prefix check of a key's reassignment (gs1/reassign.ts).
// The writes themselves are tested through the emulators (integration gs1-resolver.test.ts, admin-cli.test.ts).
import assert from "node:assert/strict";
import { Gs1ItemInputSchema, Gs1LinkInputSchema } from "../../functions/src/gs1/model";
import { SOURCE_LINK_TYPES } from "../../functions/src/gs1/sources";
import { ASSIGNABLE_LINK_TYPES } from "../../functions/src/gs1/linkTypes";
import { companyPrefixProblem, keyOfReference } from "../../functions/src/gs1/reassign";
import { checkDigitOf, primaryKeyDef } from "../../functions/src/gs1/keys";
import { AppError } from "../../functions/src/core/errors";

const withCheck = (body: string) => body + String(checkDigitOf(body));
const issuesOf = (input: unknown) => {
  const result = Gs1LinkInputSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("GS1 links from a menu code or a listing", () => {
  it("takes href or from, never both or neither; linkType and title are required with href only", () => {
    assert.deepEqual(issuesOf({ linkType: "gs1:pip", href: "https://example.com/p", title: "P" }), []);
    assert.deepEqual(issuesOf({ from: { menuCodeId: "abc123" } }), []);
    assert.deepEqual(issuesOf({ from: { listingId: "Example.COM" }, linkType: "gs1:locationInfo", title: "Shop" }), []);
    assert.deepEqual(issuesOf({ linkType: "gs1:pip", title: "P" }), ["href: Give href (an http(s) URL) or from ({menuCodeId} or {listingId})"]);
    assert.deepEqual(issuesOf({ href: "https://example.com/p", from: { menuCodeId: "abc" }, linkType: "gs1:pip", title: "P" }), ["from: Give href or from, not both"]);
    assert.deepEqual(issuesOf({ href: "https://example.com/p" }).sort(), [
      "linkType: A link with href needs its linkType (a GS1 link type such as gs1:pip)",
      "title: A link with href needs its title",
    ]);
    assert.deepEqual(issuesOf({ from: {} }), ["from: Give exactly one of menuCodeId or listingId"]);
    assert.deepEqual(issuesOf({ from: { menuCodeId: "a", listingId: "example.com" } }), ["from: Give exactly one of menuCodeId or listingId"]);
    assert.match(issuesOf({ from: { codeId: "a" } }).join(), /from: Unrecognized key/);
    assert.match(issuesOf({ from: { listingId: "https://example.com/x" } }).join(), /from\.listingId: A listed domain/);
    assert.match(issuesOf({ from: { menuCodeId: "../x" } }).join(), /from\.menuCodeId: Must be a codeId/);
  });

  it("lowercases a listing's domain, and reports issues under the link's index in an item", () => {
    assert.equal(Gs1LinkInputSchema.parse({ from: { listingId: " Example.COM " } }).from?.listingId, "example.com");
    const item = Gs1ItemInputSchema.safeParse({ value: "09506000134352", links: [{ linkType: "gs1:pip", href: "https://example.com", title: "x", isDefault: true }, { title: "no target" }] });
    assert.equal(item.success, false);
    assert.deepEqual(item.error!.issues.map((i) => i.path.join(".")), ["links.1.href"]);
  });

  it("defaults to link types the vocabulary has: gs1:menuInfo for a menu, gs1:support for a listing", () => {
    assert.deepEqual(SOURCE_LINK_TYPES, { menuCodeId: "gs1:menuInfo", listingId: "gs1:support" });
    for (const curie of Object.values(SOURCE_LINK_TYPES)) assert.ok((ASSIGNABLE_LINK_TYPES as readonly string[]).includes(curie.slice(4)), curie);
    assert.ok(!(ASSIGNABLE_LINK_TYPES as readonly string[]).includes("contactInfo"), "no contactInfo in the vocabulary list: the listing's default is gs1:support");
  });
});

describe("GS1 key reassignment: the key an operator names and the company prefix check", () => {
  const gtin = primaryKeyDef("01")!;

  it("reads a bare GTIN (padded to 14), a path or a URI of the primary key; refuses qualifiers and bad keys clearly", () => {
    assert.deepEqual(keyOfReference("9506000134352"), { def: gtin, value: "09506000134352" });
    assert.deepEqual(keyOfReference(" /01/09506000134352 "), { def: gtin, value: "09506000134352" });
    assert.deepEqual(keyOfReference("https://id.example/01/09506000134352/"), { def: gtin, value: "09506000134352" });
    assert.equal(keyOfReference("/414/9520123456788").def.ai, "414");
    const refusal = (ref: string) => {
      try {
        keyOfReference(ref);
      } catch (error) {
        assert.ok(error instanceof AppError && error.code === "VALIDATION_FAILED", String(error));
        return error.message;
      }
      assert.fail(`${ref} was accepted`);
    };
    assert.match(refusal("/01/09506000134352/10/LOT1"), /names qualifiers: a key has one owner for all its lots and serials/);
    assert.match(refusal("9506000134353"), /^--key: GTIN 9506000134353 has a wrong check digit: 3, expected 2/);
    assert.match(refusal("/99/123"), /^--key: "99" is not a GS1 primary key/);
    assert.match(refusal("gtin"), /^--key: The path must start with \//);
  });

  it("finds the company prefix after a GTIN-14's indicator digit, at a GTIN-13's start, after a GTIN-12's leading 0", () => {
    // GTIN-14 1 0614141 00001 9: indicator 1, company prefix 0614141.
    const gtin14 = withCheck("1061414100001");
    assert.equal(companyPrefixProblem(gtin, gtin14, "0614141"), undefined);
    assert.match(companyPrefixProblem(gtin, gtin14, "1061414")!, /does not begin with GS1 company prefix 1061414 \(its company prefix starts at digit 2, after the indicator digit\)/);
    // GTIN-13 9506000134352 (stored 09506000134352): company prefix 9506000.
    assert.equal(companyPrefixProblem(gtin, "09506000134352", "9506000"), undefined);
    assert.equal(companyPrefixProblem(gtin, "09506000134352", "950600013435"), undefined, "12 digits: the longest prefix");
    assert.match(companyPrefixProblem(gtin, "09506000134352", "9506001")!, /does not begin with/);
    // GTIN-12 614141000036 (stored 00614141000036): U.P.C. prefix 614141 is GS1 company prefix 0614141.
    const gtin12 = `00${withCheck("61414100003")}`;
    assert.equal(companyPrefixProblem(gtin, gtin12, "0614141"), undefined);
    assert.match(companyPrefixProblem(gtin, gtin12, "614141")!, /a U\.P\.C\. company prefix is written with a leading 0/);
  });

  it("takes a GTIN-8's first 7 digits (allocated one by one) and refuses restricted circulation numbers", () => {
    const gtin8 = withCheck("9501101");
    const stored = `000000${gtin8}`;
    assert.equal(companyPrefixProblem(gtin, stored, "9501101"), undefined);
    assert.match(companyPrefixProblem(gtin, stored, "9501")!, new RegExp(`GTIN-8 ${gtin8} has no GS1 company prefix .* give its first 7 digits 9501101`));
    assert.match(companyPrefixProblem(gtin, `000000${withCheck("2012345")}`, "2012345")!, /restricted circulation number \(RCN-8\)/);
    for (const body of ["2001234567890", "0201234567890", "0401234567890"]) {
      const value = `0${withCheck(body.slice(0, 12))}`;
      assert.match(companyPrefixProblem(gtin, value, value.slice(1, 8))!, /restricted circulation number/, value);
    }
  });

  it("checks other keys where their company prefix is: GLN at the start, SSCC after the extension digit, GRAI after the fixed 0", () => {
    assert.equal(companyPrefixProblem(primaryKeyDef("414")!, "9520123456788", "952012"), undefined);
    assert.match(companyPrefixProblem(primaryKeyDef("414")!, "9520123456788", "520123")!, /GLN 9520123456788 does not begin with GS1 company prefix 520123$/);
    assert.equal(companyPrefixProblem(primaryKeyDef("00")!, "106141412345678908", "0614141"), undefined);
    assert.match(companyPrefixProblem(primaryKeyDef("00")!, "106141412345678908", "1061414")!, /after the extension digit/);
    assert.equal(companyPrefixProblem(primaryKeyDef("8003")!, "00614141000418ABC", "0614141"), undefined);
    assert.equal(companyPrefixProblem(primaryKeyDef("8004")!, "0614141XYZ", "0614141"), undefined);
  });

  it("refuses a prefix that is not 4 to 12 digits", () => {
    for (const bad of ["123", "1234567890123", "95060A0", ""]) assert.match(companyPrefixProblem(gtin, "09506000134352", bad)!, /must be a GS1 company prefix: 4 to 12 digits/, bad);
  });
});
