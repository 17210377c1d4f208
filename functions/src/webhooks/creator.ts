// A webhook follows the person and credential that made it: it sends the workspace's scans and code
// events to an address they chose, so it stops when they could no longer read those events themselves.
// Checked before every delivery attempt (no list of webhooks to walk at revocation time): revoking the
// key or OAuth grant that created it, removing its creator from the workspace, or disabling their
// account disables it at its next delivery, with the reason shown to the owner.
import { userStanding } from "../auth/standing";
import { isKeyLive } from "../store/apiKeys";
import { getGrant } from "../store/oauthGrants";
import type { Webhook, WebhookDisabledReason } from "../store/webhooks";
import { getMembership } from "../store/workspaces";

async function credentialLive(webhook: Webhook): Promise<boolean> {
  const id = webhook.createdWith;
  if (!id) return true; // a console session: the person's own standing decides
  if (id.startsWith("grant_")) {
    const grant = await getGrant(id);
    return grant !== undefined && !grant.revokedAt;
  }
  return isKeyLive(webhook.merchantId, id);
}

/** Why the webhook may no longer deliver, or null when its creator and their credential still stand. */
export async function creatorVerdict(webhook: Webhook): Promise<Exclude<WebhookDisabledReason, "failing"> | null> {
  const [membership, standing, live] = await Promise.all([getMembership(webhook.createdBy), userStanding(webhook.createdBy), credentialLive(webhook)]);
  if (membership?.merchantId !== webhook.merchantId) return "creator-left";
  if (!standing.enabled) return "creator-disabled";
  if (!live) return "credential-revoked";
  return null;
}
