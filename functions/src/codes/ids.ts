// uniqueQRCodeID: 12 base62 characters from a CSPRNG (~71 bits): short enough for a small QR code,
// URL-safe, and not guessable or enumerable. Uniqueness is enforced by creating links/{id} atomically.
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const QR_ID_LENGTH = 12;

export function newUniqueQrId(): string {
  let id = "";
  while (id.length < QR_ID_LENGTH) {
    for (const byte of randomBytes(16)) {
      // Rejection sampling keeps the distribution uniform (248 = 4 * 62).
      if (byte < 248 && id.length < QR_ID_LENGTH) id += ALPHABET[byte % 62];
    }
  }
  return id;
}

export { QR_ID_PATTERN } from "../core/ids";
