// API key material: generation, format check and hashing. Pure functions, no I/O.
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../core/hash";

const API_KEY_PREFIX = "sk-svc-";
const API_KEY_PATTERN = /^sk-svc-[0-9a-f]{64}$/;
/** Characters of the key shown in listings: the prefix plus 8 hex characters. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString("hex");
}

export function isWellFormedApiKey(candidate: string): boolean {
  return API_KEY_PATTERN.test(candidate);
}

export function looksLikeApiKey(credential: string): boolean {
  return credential.startsWith(API_KEY_PREFIX);
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}
