// Hosted PNGs at stable, tokenized, non-expiring URLs. Two adapters behind one interface:
//  - Cloud Storage (production, and the Storage emulator where it runs): the object carries a
//    firebaseStorageDownloadTokens token, so the Firebase download URL is stable and never expires;
//  - a local store (emulator machines without a Storage emulator): files on disk, served by the
//    `images` function at /img/<path>?token=<token>.
// Re-writing a path with its existing token keeps the URL, which is how a static code's image follows a
// destination change without a new qrImageUrl.
import { randomUUID, timingSafeEqual } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import type { Writable } from "node:stream";
import path from "node:path";
import { getConfig, isLocal, storageBucketName } from "../core/config";
import { adminApp } from "../core/firebase";
import { AppError } from "../core/errors";

export interface StoredImage {
  path: string;
  token: string;
  url: string;
}

interface ImageStore {
  readonly kind: "cloud-storage" | "local";
  /** Writes the PNG at `path`; reuses `token` when given so the URL stays the same. */
  put(path: string, png: Buffer, token?: string): Promise<StoredImage>;
  delete(path: string): Promise<void>;
  /** The stored bytes at `path` (server-side reads, such as a design's logo). */
  get(path: string): Promise<Buffer>;
  /** A large file written as a stream (a job's print package); `stored` settles once it is complete. */
  writeStream(path: string, contentType: string, token?: string): { stream: Writable; stored: Promise<StoredImage> };
}

/** PNGs of codes, and ZIPs of print packages. */
const SAFE_PATH = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*\.(png|zip)$/;

const settled = (stream: Writable) =>
  new Promise<void>((resolve, reject) => {
    stream.once("finish", resolve);
    stream.once("error", reject);
  });

function assertSafePath(p: string): void {
  if (!SAFE_PATH.test(p)) throw new AppError("NOT_FOUND", "No such image");
}

const IMAGE_CACHE_CONTROL = "public, max-age=300";

class CloudStorageImageStore implements ImageStore {
  readonly kind = "cloud-storage" as const;

  private bucket() {
    const { getStorage } = require("firebase-admin/storage") as typeof import("firebase-admin/storage");
    return getStorage(adminApp()).bucket(storageBucketName());
  }

  async put(objectPath: string, png: Buffer, token: string = randomUUID()): Promise<StoredImage> {
    assertSafePath(objectPath);
    await this.bucket()
      .file(objectPath)
      .save(png, {
        resumable: false,
        contentType: "image/png",
        metadata: { cacheControl: IMAGE_CACHE_CONTROL, metadata: { firebaseStorageDownloadTokens: token } },
      });
    return { path: objectPath, token, url: downloadUrl(storageBucketName(), objectPath, token) };
  }

  async delete(objectPath: string): Promise<void> {
    await this.bucket().file(objectPath).delete({ ignoreNotFound: true });
  }

  writeStream(objectPath: string, contentType: string, token: string = randomUUID()) {
    assertSafePath(objectPath);
    const name = objectPath.split("/").pop();
    const stream = this.bucket()
      .file(objectPath)
      .createWriteStream({ resumable: true, contentType, metadata: { contentDisposition: `attachment; filename="${name}"`, metadata: { firebaseStorageDownloadTokens: token } } });
    return { stream, stored: settled(stream).then(() => ({ path: objectPath, token, url: downloadUrl(storageBucketName(), objectPath, token) })) };
  }

  async get(objectPath: string): Promise<Buffer> {
    assertSafePath(objectPath);
    const [bytes] = await this.bucket().file(objectPath).download();
    return bytes;
  }
}

export function downloadUrl(bucket: string, objectPath: string, token: string): string {
  const emulator = process.env.FIREBASE_STORAGE_EMULATOR_HOST;
  const origin = emulator ? `http://${emulator.replace(/^https?:\/\//, "")}` : "https://firebasestorage.googleapis.com";
  return `${origin}/v0/b/${bucket}/o/${encodeURIComponent(objectPath)}?alt=media&token=${token}`;
}

function localImageDir(): string {
  return process.env.LOCAL_IMAGE_DIR ?? path.resolve(process.cwd(), ".local-images");
}

export class LocalImageStore implements ImageStore {
  readonly kind = "local" as const;

  constructor(private readonly dir = localImageDir()) {}

  async put(imagePath: string, png: Buffer, token: string = randomUUID()): Promise<StoredImage> {
    assertSafePath(imagePath);
    const file = path.join(this.dir, imagePath);
    await mkdir(path.dirname(file), { recursive: true });
    // Write then rename, so a reader never sees half a file.
    const tmp = `${file}.${randomUUID()}.tmp`;
    await writeFile(tmp, png);
    await writeFile(`${file}.token`, token);
    await rename(tmp, file);
    return { path: imagePath, token, url: `${getConfig().appUrl}/img/${imagePath}?token=${token}` };
  }

  writeStream(imagePath: string, _contentType: string, token: string = randomUUID()) {
    assertSafePath(imagePath);
    const file = path.join(this.dir, imagePath);
    const tmp = `${file}.${randomUUID()}.tmp`;
    // The directory must exist before the stream opens its file: created synchronously here.
    require("node:fs").mkdirSync(path.dirname(file), { recursive: true });
    const stream = createWriteStream(tmp);
    const stored = settled(stream).then(async () => {
      await writeFile(`${file}.token`, token);
      await rename(tmp, file);
      return { path: imagePath, token, url: `${getConfig().appUrl}/img/${imagePath}?token=${token}` };
    });
    return { stream, stored };
  }

  async delete(imagePath: string): Promise<void> {
    assertSafePath(imagePath);
    const file = path.join(this.dir, imagePath);
    await rm(file, { force: true });
    await rm(`${file}.token`, { force: true });
  }

  async get(imagePath: string): Promise<Buffer> {
    assertSafePath(imagePath);
    return readFile(path.join(this.dir, imagePath));
  }

  /** The PNG if `token` matches the one stored with it (constant-time compare). */
  async read(imagePath: string, token: string): Promise<Buffer> {
    assertSafePath(imagePath);
    const file = path.join(this.dir, imagePath);
    let stored: string;
    try {
      stored = await readFile(`${file}.token`, "utf8");
    } catch {
      throw new AppError("NOT_FOUND", "No such image");
    }
    const a = Buffer.from(stored);
    const b = Buffer.from(token);
    if (a.length !== b.length || !timingSafeEqual(a, b)) throw new AppError("FORBIDDEN", "Invalid image token");
    return readFile(file);
  }
}

let store: ImageStore | undefined;

/** Cloud Storage in production and wherever a Storage emulator runs; the local store otherwise. */
export function imageStore(): ImageStore {
  store ??= !isLocal() || process.env.FIREBASE_STORAGE_EMULATOR_HOST ? new CloudStorageImageStore() : new LocalImageStore();
  return store;
}
