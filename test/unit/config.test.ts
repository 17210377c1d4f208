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

describe("project and bucket names", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ["GCLOUD_PROJECT", "FIREBASE_CONFIG", "STORAGE_BUCKET"]) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it("come from the environment, then FIREBASE_CONFIG, then defaults", async () => {
    const { projectId, storageBucketName } = await import("../../functions/src/core/config");
    delete process.env.GCLOUD_PROJECT;
    delete process.env.STORAGE_BUCKET;
    process.env.FIREBASE_CONFIG = JSON.stringify({ projectId: "prod-app", storageBucket: "prod-app.firebasestorage.app" });
    assert.equal(projectId(), "prod-app");
    assert.equal(storageBucketName(), "prod-app.firebasestorage.app");
    process.env.FIREBASE_CONFIG = "/not/json/path";
    assert.equal(projectId(), "demo-merchant-qr");
    assert.equal(storageBucketName(), "demo-merchant-qr.appspot.com");
    process.env.GCLOUD_PROJECT = "env-project";
    process.env.STORAGE_BUCKET = "custom-bucket";
    assert.equal(projectId(), "env-project");
    assert.equal(storageBucketName(), "custom-bucket");
  });
});
