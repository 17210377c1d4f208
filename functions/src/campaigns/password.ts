// Password-protected codes (issue 38 item 3, docs/campaign-rules.md "The password page"). A `password`
// action shows a page on the public host asking for the code's password; only the right one opens the
// action's URL. The password is never stored: its link carries a salted scrypt hash (node:crypto), and the
// form's POST (redirect/password.ts) is checked against it, limited per client address.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { z } from "zod";

/** scrypt's cost: N = 2^15, r = 8, p = 1 (32 MiB, tens of ms a check): a stolen hash costs as much a guess. */
const COST = { N: 32_768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/**
 * At least 8 characters, and none of the common ones (zxcvbn-ts's list of the passwords most often found in
 * breach corpora), checked when a password is set or changed. Passwords set before (6 or 7 characters) keep
 * working: only their hash is checked.
 */
export const PASSWORD_MIN = 8;

let common: Set<string> | undefined;

/** Whether `password` is on the list of common passwords (compared lowercased, NFC). Loaded at first use. */
export function isCommonPassword(password: string): boolean {
  // Loaded here, not at the top: the list (49,000 entries) is needed only where a password is set.
  common ??= new Set((require("@zxcvbn-ts/language-common") as typeof import("@zxcvbn-ts/language-common")).dictionary["passwords-common"]);
  return common.has(password.normalize("NFC").toLowerCase());
}
export const PASSWORD_MAX = 128;

/** What a link keeps of a code's password: the scrypt parameters, the salt and the derived key (base64url). */
export interface PasswordHash {
  alg: "scrypt";
  N: number;
  r: number;
  p: number;
  salt: string;
  hash: string;
}

/** The password as a code's settings take it (write-only: never read back, never stored as written). */
export const passwordSchema = z
  .string({ error: "password is a string" })
  .min(PASSWORD_MIN, `password has at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `password has at most ${PASSWORD_MAX} characters`)
  .refine((p) => !isCommonPassword(p), "password is one of the most common passwords: choose one that is harder to guess");

/** The password page's form, as its POST sends it (application/x-www-form-urlencoded). */
export const passwordFormSchema = z.strictObject(
  { password: z.string({ error: "the form sends password" }).min(1, "type the password").max(PASSWORD_MAX, `a password has at most ${PASSWORD_MAX} characters`) },
  { error: (issue) => (issue.code === "unrecognized_keys" ? "the form sends only password" : undefined) },
);

function derive(password: string, salt: Buffer, cost: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password.normalize("NFC"), salt, KEY_BYTES, cost, (error, key) => (error ? reject(error) : resolve(key))));
}

/** A new salted hash of `password`. */
export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST);
  return { alg: "scrypt", N: COST.N, r: COST.r, p: COST.p, salt: salt.toString("base64url"), hash: key.toString("base64url") };
}

/** Whether `password` is the one `stored` was made from (constant-time comparison). */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, "base64url");
  const key = await derive(password, Buffer.from(stored.salt, "base64url"), { N: stored.N, r: stored.r, p: stored.p, maxmem: COST.maxmem });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
