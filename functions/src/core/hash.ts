// SHA-256 as lowercase hex: the one digest for stored hashes of keys, tokens and ids derived from them.
import { createHash } from "node:crypto";

export const sha256Hex = (value: string): string => createHash("sha256").update(value, "utf8").digest("hex");
