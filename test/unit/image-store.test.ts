import assert from "node:assert/strict";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { AppError } from "../../functions/src/core/errors";
import { downloadUrl, LocalImageStore } from "../../functions/src/store/images";

describe("image stores", () => {
  it("Cloud Storage download URLs follow the Firebase token format", () => {
    const saved = process.env.FIREBASE_STORAGE_EMULATOR_HOST;
    delete process.env.FIREBASE_STORAGE_EMULATOR_HOST;
    try {
      assert.equal(
        downloadUrl("demo.appspot.com", "qr/m1/c1.png", "tok"),
        "https://firebasestorage.googleapis.com/v0/b/demo.appspot.com/o/qr%2Fm1%2Fc1.png?alt=media&token=tok",
      );
      process.env.FIREBASE_STORAGE_EMULATOR_HOST = "127.0.0.1:9199";
      assert.equal(downloadUrl("b", "qr/x.png", "t"), "http://127.0.0.1:9199/v0/b/b/o/qr%2Fx.png?alt=media&token=t");
    } finally {
      if (saved === undefined) delete process.env.FIREBASE_STORAGE_EMULATOR_HOST;
      else process.env.FIREBASE_STORAGE_EMULATOR_HOST = saved;
    }
  });

  it("the local store keeps files on disk, keeps the URL on rewrite, and checks tokens", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "images-"));
    const store = new LocalImageStore(dir);
    const first = await store.put("qr/m1/c1.png", Buffer.from("one"));
    const again = await store.put("qr/m1/c1.png", Buffer.from("two"), first.token);
    assert.equal(again.url, first.url);
    assert.equal((await readFile(path.join(dir, "qr/m1/c1.png"))).toString(), "two");
    // A new instance (a restart) still serves it.
    assert.equal((await new LocalImageStore(dir).read("qr/m1/c1.png", first.token)).toString(), "two");
    await assert.rejects(store.read("qr/m1/c1.png", "wrong"), (e: AppError) => e.code === "FORBIDDEN");
    await assert.rejects(store.read("../etc/passwd.png", first.token), (e: AppError) => e.code === "NOT_FOUND");
    await store.delete("qr/m1/c1.png");
    await assert.rejects(store.read("qr/m1/c1.png", first.token), (e: AppError) => e.code === "NOT_FOUND");
  });

  it("the local store takes a print package as a stream: whole once finished, never half-read, token-checked", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "images-"));
    const store = new LocalImageStore(dir);
    const { stream, stored } = store.writeStream("packages/m1/job_1.zip", "application/zip");
    stream.write(Buffer.from("PK part one,"));
    await assert.rejects(store.read("packages/m1/job_1.zip", "any"), (e: AppError) => e.code === "NOT_FOUND", "nothing readable before the end");
    stream.end(Buffer.from(" part two"));
    const file = await stored;
    assert.equal((await store.read(file.path, file.token)).toString(), "PK part one, part two");
    await assert.rejects(store.read(file.path, "wrong"), (e: AppError) => e.code === "FORBIDDEN");
    assert.throws(() => store.writeStream("../escape.zip", "application/zip"), (e: AppError) => e.code === "NOT_FOUND");
    assert.throws(() => store.writeStream("packages/m1/job_1.exe", "application/octet-stream"), (e: AppError) => e.code === "NOT_FOUND");
  });
});
