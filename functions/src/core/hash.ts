// SHA-256, the one digest of the service: stored hashes of keys, tokens and ids derived from them (hex),
// content hashes for ETags and CSP (base64, base64url), and raw digests for key derivation. A leaf
// module: every SHA-256 in functions/src goes through here.
import { createHash, type BinaryToTextEncoding } from "node:crypto";

export function sha256(data: string | Uint8Array): Buffer;
export function sha256(data: string | Uint8Array, encoding: BinaryToTextEncoding): string;
export function sha256(data: string | Uint8Array, encoding?: BinaryToTextEncoding): Buffer | string {
  const hash = createHash("sha256").update(data);
  return encoding ? hash.digest(encoding) : hash.digest();
}

/** Lowercase hex of the UTF-8 text's digest. */
export const sha256Hex = (value: string): string => sha256(value, "hex");
