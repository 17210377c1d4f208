// Test fixtures on the real emulators: Auth users (through the Auth emulator's REST API), workspaces
// and API keys (through the service's own store modules, i.e. the Admin SDK against Firestore).
import { randomUUID } from "node:crypto";
import { getAuth } from "firebase-admin/auth";
import { adminApp, db } from "../../functions/src/core/firebase";
import { SCOPES, type Scope } from "../../functions/src/auth/scopes";
import { mintApiKey } from "../../functions/src/auth/apiKeys";
import { ensureWorkspaceForOwner } from "../../functions/src/store/workspaces";

export function firestore() {
  return db();
}

export interface TestUser {
  uid: string;
  email: string;
  idToken: string;
}

export async function signUp(email = `user-${randomUUID()}@example.com`, password = "password-123"): Promise<TestUser> {
  const host = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  const res = await fetch(`http://${host}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=fake-api-key`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password, returnSecureToken: true }),
  });
  const body = (await res.json()) as { localId: string; idToken: string };
  if (!res.ok) throw new Error(`signUp failed: ${JSON.stringify(body)}`);
  return { uid: body.localId, email, idToken: body.idToken };
}

/** Signs in on the Auth emulator's REST API as the console does: true when the password is right. */
export async function signInWithPassword(email: string, password: string): Promise<boolean> {
  const host = process.env.FIREBASE_AUTH_EMULATOR_HOST;
  const res = await fetch(`http://${host}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=fake-api-key`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password, returnSecureToken: true }),
  });
  await res.arrayBuffer();
  return res.ok;
}

/**
 * An ID token of an account created an hour ago whose sign-in is `ageSeconds` old. The Auth emulator's
 * tokens are unsigned, so a test can state an old auth_time; the account's validSince is moved back an
 * hour (through the emulator's accounts:update) so that the token is not taken for a revoked one.
 */
export async function tokenSignedInAgo(user: { uid: string; idToken: string }, ageSeconds: number): Promise<string> {
  const res = await fetch(`http://${process.env.FIREBASE_AUTH_EMULATOR_HOST}/identitytoolkit.googleapis.com/v1/projects/${process.env.GCLOUD_PROJECT}/accounts:update`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: "Bearer owner" },
    body: JSON.stringify({ localId: user.uid, validSince: String(Math.floor(Date.now() / 1000) - 3600) }),
  });
  if (res.status !== 200) throw new Error(`accounts:update failed: ${res.status} ${await res.text()}`);
  const [header, payload] = user.idToken.split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  claims.auth_time = Math.floor(Date.now() / 1000) - ageSeconds;
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.`;
}

export interface TestMerchant extends TestUser {
  merchantId: string;
  apiKey: string;
}

export async function createMerchant(scopes: Scope[] = [...SCOPES], name = "Test Merchant"): Promise<TestMerchant> {
  const user = await signUp();
  const { workspace } = await ensureWorkspaceForOwner(user.uid, name);
  const { key } = await mintApiKey({ merchantId: workspace.merchantId, uid: user.uid, name: "test", scopes });
  return { ...user, merchantId: workspace.merchantId, apiKey: key };
}

export async function mintKey(merchant: TestMerchant, scopes: Scope[]): Promise<string> {
  return (await mintApiKey({ merchantId: merchant.merchantId, uid: merchant.uid, name: "extra", scopes })).key;
}

/** A signed-in user with the `admin` custom claim (console moderation): their ID token. */
export async function adminToken(): Promise<string> {
  const email = `admin-${randomUUID()}@example.com`;
  const user = await signUp(email, "admin-password");
  await getAuth(adminApp()).setCustomUserClaims(user.uid, { admin: true });
  const res = await fetch(`http://${process.env.FIREBASE_AUTH_EMULATOR_HOST}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=fake`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password: "admin-password", returnSecureToken: true }),
  });
  return ((await res.json()) as { idToken: string }).idToken;
}
