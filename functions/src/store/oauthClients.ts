// OAuth client records: registered (RFC 7591, id minted here) or fetched from a Client ID Metadata
// Document (id is the document's URL; the record is a cache with an expiry). Document id: SHA-256 of client_id.
import { FieldValue, Timestamp } from "firebase-admin/firestore";
import { db } from "../core/firebase";
import { sha256Hex } from "../oauth/secrets";
import { COLLECTIONS } from "./collections";

export interface OAuthClient {
  clientId: string;
  kind: "registered" | "metadata-document";
  clientName: string;
  clientUri: string | null;
  redirectUris: string[];
  /** Metadata documents only: when the cached copy must be fetched again. */
  expiresAt: Date | null;
}

const clients = () => db().collection(COLLECTIONS.oauthClients);

export async function getOAuthClient(clientId: string): Promise<OAuthClient | undefined> {
  const snap = await clients().doc(sha256Hex(clientId)).get();
  if (!snap.exists) return undefined;
  const d = snap.data()!;
  return {
    clientId: d.clientId,
    kind: d.kind,
    clientName: d.clientName,
    clientUri: d.clientUri ?? null,
    redirectUris: d.redirectUris ?? [],
    expiresAt: d.expiresAt ? (d.expiresAt as Timestamp).toDate() : null,
  };
}

export async function saveOAuthClient(client: OAuthClient): Promise<void> {
  await clients()
    .doc(sha256Hex(client.clientId))
    .set({
      ...client,
      expiresAt: client.expiresAt ? Timestamp.fromDate(client.expiresAt) : null,
      updatedAt: FieldValue.serverTimestamp(),
    });
}
