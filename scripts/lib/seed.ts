// Seeds the demo merchant: an Auth user, its workspace and a real API key with every scope.
import { getAuth } from "firebase-admin/auth";
import { adminApp } from "../../functions/src/core/firebase";
import { SCOPES } from "../../functions/src/auth/scopes";
import { mintApiKey } from "../../functions/src/store/apiKeys";
import { ensureWorkspaceForOwner } from "../../functions/src/store/workspaces";

export const DEMO_USER = { email: "demo@example.com", password: "demo-password", displayName: "Demo Merchant" };
export const DEMO_MERCHANT_ID = "demo-merchant";

export async function seedDemo(): Promise<{ uid: string; merchantId: string; apiKey: string }> {
  const auth = getAuth(adminApp());
  const user = await auth.getUserByEmail(DEMO_USER.email).catch(() => auth.createUser(DEMO_USER));
  const { workspace } = await ensureWorkspaceForOwner(user.uid, "Demo Coffee Roasters", DEMO_MERCHANT_ID);
  const { key } = await mintApiKey({ merchantId: workspace.merchantId, uid: user.uid, name: "demo key (npm start)", scopes: [...SCOPES] });
  return { uid: user.uid, merchantId: workspace.merchantId, apiKey: key };
}
