// OAuth client records: registered (RFC 7591, id minted here) or fetched from a Client ID Metadata
// Document (id is the document's URL; the record is a cache with an expiry). Document id: SHA-256 of client_id.
// A client unused for 90 days is gone: `purgeAt` (TTL) moves on with each use, and reads honour it before
// the TTL sweep (which may lag) removes the document.
import { FieldValue, Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { sha256Hex } from "../core/hash";
import { COLLECTIONS } from "./collections";
import { dateOrNull, listOf, recordConverter } from "./records";

export const CLIENT_UNUSED_TTL_MS = 90 * 24 * 3600_000;

export interface OAuthClient {
  clientId: string;
  kind: "registered" | "metadata-document";
  clientName: string;
  clientUri: string | null;
  redirectUris: string[];
  /** Metadata documents only: when the cached copy must be fetched again. */
  expiresAt: Date | null;
}

/** A client record with the time its TTL removes it (null for a record from before purgeAt). */
const clientRecord = recordConverter<{ client: OAuthClient; purgeAt: Date | null }>((d) => ({
  client: {
    clientId: d.clientId,
    kind: d.kind,
    clientName: d.clientName,
    clientUri: d.clientUri ?? null,
    redirectUris: listOf<string>(d.redirectUris),
    expiresAt: dateOrNull(d.expiresAt),
  },
  purgeAt: dateOrNull(d.purgeAt),
}));

const clients = () => db().collection(COLLECTIONS.oauthClients);
const purgeAt = (now: number) => Timestamp.fromMillis(now + CLIENT_UNUSED_TTL_MS);

export async function getOAuthClient(clientId: string, now = Date.now()): Promise<OAuthClient | undefined> {
  const found = (await clients().doc(sha256Hex(clientId)).withConverter(clientRecord).get()).data();
  if (!found || (found.purgeAt && found.purgeAt.getTime() <= now)) return undefined;
  return found.client;
}

export async function saveOAuthClient(client: OAuthClient, now = Date.now()): Promise<void> {
  await clients()
    .doc(sha256Hex(client.clientId))
    .set({
      ...client,
      expiresAt: client.expiresAt ? Timestamp.fromDate(client.expiresAt) : null,
      updatedAt: FieldValue.serverTimestamp(),
      lastUsedAt: FieldValue.serverTimestamp(),
      purgeAt: purgeAt(now),
    });
}

/** Records a use (authorization or token request); a client already purged stays gone. */
export async function touchOAuthClient(clientId: string, now = Date.now()): Promise<void> {
  await clients()
    .doc(sha256Hex(clientId))
    .update({ lastUsedAt: FieldValue.serverTimestamp(), purgeAt: purgeAt(now) })
    .catch((error: { code?: number }) => {
      if (error?.code !== 5) throw error; // NOT_FOUND: nothing to keep alive
    });
}
