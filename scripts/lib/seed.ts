// Seeds the demo merchant: an Auth user, its workspace and a real API key with every scope. The key is
// kept in plain text (the store keeps only its hash) in a git-ignored file beside the saved emulator state, so that with that state (npm start imports
// it) the same key keeps working across restarts and the MCP client configuration stays valid.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEMO_KEY_FILE } from "./stack";
import { getAuth } from "firebase-admin/auth";
import { adminApp } from "../../functions/src/core/firebase";
import { SCOPES } from "../../functions/src/auth/scopes";
import { hashApiKey, isWellFormedApiKey, mintApiKey } from "../../functions/src/auth/apiKeys";
import { findApiKeyByHash } from "../../functions/src/store/apiKeys";
import { ensureWorkspaceForOwner } from "../../functions/src/store/workspaces";

export const DEMO_USER = { email: "demo@example.com", password: "demo-password", displayName: "Demo Merchant" };
export const DEMO_MERCHANT_ID = "demo-merchant";

export async function seedDemo(options: { keepKey?: boolean } = {}): Promise<{ uid: string; merchantId: string; apiKey: string; reused: boolean }> {
  const auth = getAuth(adminApp());
  const user = await auth.getUserByEmail(DEMO_USER.email).catch(() => auth.createUser(DEMO_USER));
  const { workspace } = await ensureWorkspaceForOwner(user.uid, "Demo Coffee Roasters", DEMO_MERCHANT_ID);
  if (options.keepKey) {
    const saved = existsSync(DEMO_KEY_FILE) ? readFileSync(DEMO_KEY_FILE, "utf8").trim() : "";
    const record = isWellFormedApiKey(saved) ? await findApiKeyByHash(hashApiKey(saved)) : undefined;
    if (record && !record.revokedAt && record.merchantId === workspace.merchantId) return { uid: user.uid, merchantId: workspace.merchantId, apiKey: saved, reused: true };
  }
  const { key } = await mintApiKey({ merchantId: workspace.merchantId, uid: user.uid, name: "demo key (npm start)", scopes: [...SCOPES] });
  if (options.keepKey) {
    mkdirSync(path.dirname(DEMO_KEY_FILE), { recursive: true });
    writeFileSync(DEMO_KEY_FILE, `${key}\n`, { mode: 0o600 });
  }
  return { uid: user.uid, merchantId: workspace.merchantId, apiKey: key, reused: false };
}
