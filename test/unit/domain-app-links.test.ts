// A branded domain's app association files (functions/src/domains/appLinks.ts; docs/domains.md, "App
// links"): the strict shapes of Apple's apple-app-site-association and Google's assetlinks.json, the size
// bound, and what the serving layer gets for (host, path): 200 application/json, or null for its 404.
import assert from "node:assert/strict";
import { APP_LINK_MAX_BYTES, AppLinksInputSchema, AppleAppSiteAssociationSchema, AssetLinksSchema, wellKnownAnswer, wellKnownFileOf } from "../../functions/src/domains/appLinks";

const FP = Array(32).fill("14").join(":");
const apple = { applinks: { details: [{ appIDs: ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app2"], components: [{ "#": "no_universal_links", exclude: true, comment: "not these" }, { "/": "/qr/*", "?": { ref: "?*" } }] }] } };
const google = [{ relation: ["delegate_permission/common.handle_all_urls"], target: { namespace: "android_app", package_name: "com.example.app", sha256_cert_fingerprints: [FP] } }];

describe("app association files: documented shapes, strictly", () => {
  it("accepts Apple's documented forms: components, the older paths with an empty apps, webcredentials, appclips, defaults and substitution variables", () => {
    for (const file of [
      apple,
      { applinks: { apps: [], details: [{ appID: "ABCDE12345.com.example.app", paths: ["/qr/*", "NOT /admin/*"] }] } },
      { webcredentials: { apps: ["ABCDE12345.com.example.app"] } },
      { appclips: { apps: ["ABCDE12345.com.example.app.Clip"] }, activitycontinuation: { apps: ["ABCDE12345.com.example.app"] } },
      { applinks: { defaults: { caseSensitive: false }, substitutionVariables: { food: ["burrito", "taco"] }, details: [{ appIDs: ["ABCDE12345.com.example.app"], components: [{ "/": "/$(food)/*", percentEncoded: false }] }] } },
    ]) {
      assert.ok(AppleAppSiteAssociationSchema.safeParse(file).success, JSON.stringify(file));
    }
  });

  it("refuses what Apple's shape does not allow, each with the field that is wrong", () => {
    const refused: Array<[string, unknown, string]> = [
      ["nothing in it", {}, ""],
      ["an unknown top-level key", { ...apple, extra: 1 }, ""],
      ["an app id without the team prefix", { applinks: { details: [{ appIDs: ["com.example.app"] }] } }, "applinks.details.0.appIDs.0"],
      ["a detail naming no app", { applinks: { details: [{ components: [{ "/": "/x" }] }] } }, "applinks.details.0"],
      ["an unknown component key", { applinks: { details: [{ appID: "ABCDE12345.a.b", components: [{ path: "/x" }] }] } }, "applinks.details.0.components.0"],
      ["a non-empty legacy apps", { applinks: { apps: ["x"], details: [] } }, "applinks.apps"],
      ["a string where a list goes", { webcredentials: { apps: "ABCDE12345.a.b" } }, "webcredentials.apps"],
      ["not an object", [apple], ""],
    ];
    for (const [what, file, path] of refused) {
      const result = AppleAppSiteAssociationSchema.safeParse(file);
      assert.ok(!result.success, what);
      assert.ok(result.error.issues.some((i) => i.path.join(".") === path), `${what}: ${JSON.stringify(result.error.issues.map((i) => i.path.join(".")))}`);
    }
  });

  it("accepts Google's statement lists (an app with several fingerprints, a web target, an include, dynamic components) and refuses malformed ones", () => {
    for (const file of [
      google,
      [{ relation: ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"], target: { namespace: "android_app", package_name: "com.example.app", sha256_cert_fingerprints: [FP, FP.replace(/14/g, "AB")] } }],
      [{ relation: ["delegate_permission/common.get_login_creds"], target: { namespace: "web", site: "https://signin.example.com" } }],
      [{ include: "https://example.com/includedstatements.json" }],
      [{ ...google[0], relation_extensions: { "delegate_permission/common.handle_all_urls": { dynamic_app_link_components: [{ "/": "/qr/*", exclude: false, comments: "codes" }] } } }],
    ]) {
      assert.ok(AssetLinksSchema.safeParse(file).success, JSON.stringify(file));
    }
    const refused: Array<[string, unknown]> = [
      ["an empty list", []],
      ["an object, not a list", google[0]],
      ["a lower-case fingerprint", [{ ...google[0], target: { ...google[0].target, sha256_cert_fingerprints: [FP.replace(/14/g, "ab")] } }]],
      ["a short fingerprint", [{ ...google[0], target: { ...google[0].target, sha256_cert_fingerprints: ["14:6D"] } }]],
      ["an unknown namespace", [{ ...google[0], target: { namespace: "ios_app", package_name: "com.example.app" } }]],
      ["a relation as a string", [{ ...google[0], relation: "delegate_permission/common.handle_all_urls" }]],
      ["a web site with a path", [{ relation: ["delegate_permission/common.get_login_creds"], target: { namespace: "web", site: "https://example.com/app" } }]],
      ["an unknown statement key", [{ ...google[0], note: "x" }]],
      ["an http include", [{ include: "http://example.com/x.json" }]],
    ];
    for (const [what, file] of refused) assert.ok(!AssetLinksSchema.safeParse(file).success, what);
  });

  it("bounds each file's size, and a change must name a file (null removes one)", () => {
    const big = { applinks: { details: [{ appID: "ABCDE12345.com.example.app", paths: Array.from({ length: 500 }, (_, i) => `/${String(i)}/${"x".repeat(200)}`) }] } };
    assert.ok(JSON.stringify(big).length > APP_LINK_MAX_BYTES);
    const tooBig = AppLinksInputSchema.safeParse({ appleAppSiteAssociation: big });
    assert.ok(!tooBig.success);
    assert.match(tooBig.error.issues[0].message, /at most 65536 bytes/);
    assert.ok(AppLinksInputSchema.safeParse({ appleAppSiteAssociation: apple, assetLinks: google }).success);
    assert.ok(AppLinksInputSchema.safeParse({ assetLinks: null }).success);
    assert.ok(!AppLinksInputSchema.safeParse({}).success, "an empty change");
    assert.ok(!AppLinksInputSchema.safeParse({ apple }).success, "an unknown key");
  });
});

describe("app association files: what the serving layer gets", () => {
  const stored = new Map([["scan.brand.example apple", JSON.stringify(apple)], ["scan.brand.example android", JSON.stringify(google)]]);
  const reads: string[] = [];
  const read = (hostname: string, file: string) => {
    reads.push(`${hostname} ${file}`);
    return Promise.resolve(stored.get(`${hostname} ${file}`) ?? null);
  };

  it("the two well-known paths, exactly", () => {
    assert.equal(wellKnownFileOf("/.well-known/apple-app-site-association"), "apple");
    assert.equal(wellKnownFileOf("/.well-known/assetlinks.json"), "android");
    for (const other of ["/apple-app-site-association", "/.well-known/assetlinks.json/", "/.well-known/ASSETLINKS.JSON", "/.well-known/constructor", "/.well-known/__proto__", "/.well-known/gs1resolver"]) assert.equal(wellKnownFileOf(other), undefined, other);
  });

  it("answers the stored text as 200 application/json (never a redirect), for the host in any case or with a port; null for no file, other paths and other hosts", async () => {
    reads.length = 0;
    assert.deepEqual(await wellKnownAnswer("Scan.Brand.Example:443", "/.well-known/apple-app-site-association", read), { status: 200, contentType: "application/json", body: JSON.stringify(apple) });
    const android = await wellKnownAnswer("scan.brand.example.", "/.well-known/assetlinks.json", read);
    assert.deepEqual(JSON.parse(android!.body), google);
    assert.equal(await wellKnownAnswer("other.example", "/.well-known/assetlinks.json", read), null);
    const before = reads.length;
    assert.equal(await wellKnownAnswer("scan.brand.example", "/.well-known/other", read), null);
    assert.equal(await wellKnownAnswer("", "/.well-known/assetlinks.json", read), null);
    assert.equal(reads.length, before, "nothing is read for a path that is not one of the files, or no host");
  });
});
