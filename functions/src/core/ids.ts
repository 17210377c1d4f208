// One zod schema per kind of id that arrives in a path, a query or tool arguments. Every id becomes a
// Firestore document id or part of a path, so a malformed one must stop at the edge: "a/b" would address
// a nested document, "." and ".." are reserved, "__x__" is reserved by Firestore, and a very long one
// fails the 1,500-byte limit. Ids the service mints are Firestore auto-ids (20 base62 characters), but
// workspaces made by the admin CLI may carry chosen ids, so record ids allow a little more than that.
import { z } from "zod";

/** Record ids (codeId, menuId, merchantId...): starts with a letter or digit, then letters, digits, - or _. */
const RECORD_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** uniqueQRCodeID: 12 base62 characters from a CSPRNG (codes/ids.ts mints them). */
export const QR_ID_PATTERN = /^[0-9A-Za-z]{12}$/;
/** API key record id (store/apiKeys.ts): `key_` and 16 hex digits. */
const KEY_ID_PATTERN = /^key_[0-9a-f]{16}$/;
/** OAuth grant id (oauth/secrets.ts mints them): `grant_` and 24 hex digits. */
const GRANT_ID_PATTERN = /^grant_[0-9a-f]{24}$/;
/** A pending OAuth authorization request: `req_` and 32 hex digits. */
export const OAUTH_REQUEST_ID_PATTERN = /^req_[0-9a-f]{32}$/;

function recordId(what: string) {
  return z
    .string()
    .regex(RECORD_ID_PATTERN, `Must be a ${what}: 1 to 64 letters, digits, - or _, starting with a letter or digit`)
    .describe(`${what[0].toUpperCase()}${what.slice(1)}`);
}

export const ids = {
  codeId: recordId("codeId").describe("From svc.qr.create or svc.qr.list"),
  menuId: recordId("menuId").describe("Menu id from svc.menu.create or svc.menu.list"),
  recordId: recordId("record id"),
  merchantId: recordId("merchantId"),
  uniqueQRCodeID: z
    .string()
    .regex(QR_ID_PATTERN, "Must be a uniqueQRCodeID: 12 letters and digits")
    .describe("The last part of a dynamic link"),
  keyId: z.string().regex(KEY_ID_PATTERN, "Must be a keyId: key_ and 16 hex digits"),
  grantId: z.string().regex(GRANT_ID_PATTERN, "Must be a grantId: grant_ and 24 hex digits"),
  /** A branded domain (store/domains.ts mints them): `dom_` and a Firestore auto-id. */
  domainId: z.string().regex(/^dom_[A-Za-z0-9]{20}$/, "a domain id (dom_ and 20 letters or digits)"),
  oauthRequestId: z.string().regex(OAUTH_REQUEST_ID_PATTERN, "Must be an authorization request id: req_ and 32 hex digits"),
};
