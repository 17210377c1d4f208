// API key material: generation, format check and hashing (pure), and minting a key (its record in store/).
import { randomBytes } from "node:crypto";
import type { Scope } from "../core/constants";
import { sha256Hex } from "../core/hash";
import { createApiKeyRecord, type ApiKeyRecord } from "../store/apiKeys";

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

/** Mints a key; the plaintext is returned to the caller once and exists nowhere else. */
export async function mintApiKey(input: { merchantId: string; uid: string; name: string; scopes: Scope[] }): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey();
  const record = await createApiKeyRecord(hashApiKey(key), { ...input, prefix: displayPrefix(key) });
  return { key, record };
}
