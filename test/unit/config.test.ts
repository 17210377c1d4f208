import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { LOCAL_PORTS, LOCAL_PROJECT_ID } from "../../functions/src/core/config";

describe("config", () => {
  it("local port defaults match firebase.json and the project id matches .firebaserc", () => {
    const root = path.resolve(__dirname, "..", "..");
    const firebase = JSON.parse(readFileSync(path.join(root, "firebase.json"), "utf8"));
    for (const [name, port] of Object.entries(LOCAL_PORTS)) {
      assert.equal(firebase.emulators[name].port, port, name);
    }
    const rc = JSON.parse(readFileSync(path.join(root, ".firebaserc"), "utf8"));
    assert.equal(rc.projects.default, LOCAL_PROJECT_ID);
    assert.ok(LOCAL_PROJECT_ID.startsWith("demo-"));
  });
});
