// Whether the person behind a credential may still use it: shared by API keys (auth/caller.ts) and OAuth
// grants (auth/oauthAccess.ts), which both follow the account of the person who made them. A leaf below both,
// so neither imports the other.
import { auth } from "../core/firebase";
import { logError } from "../core/log";

interface UserStanding {
  enabled: boolean;
  /** Epoch ms of `tokensValidAfterTime`: grants made before it end. 0 when unknown. */
  validAfterMs: number;
}
const USER_STATUS_CACHE_MS = 60_000;
const userStatus = new Map<string, { at: number; standing: Promise<UserStanding> }>();

/**
 * Whether a Firebase user exists and is enabled, and since when their sessions are valid (signing out
 * everywhere moves it). Asked of Firebase Auth at most once per minute per uid and instance, unless
 * `fresh`: a disabled minter's keys and OAuth grants stop within that minute (docs/decisions.md, "Keys").
 */
export function userStanding(uid: string, options: { fresh?: boolean } = {}, now = Date.now()): Promise<UserStanding> {
  const cached = userStatus.get(uid);
  if (!options.fresh && cached && now - cached.at < USER_STATUS_CACHE_MS) return cached.standing;
  if (userStatus.size > 10_000) userStatus.clear();
  const standing = auth()
    .getUser(uid)
    .then((user) => ({ enabled: !user.disabled, validAfterMs: user.tokensValidAfterTime ? Date.parse(user.tokensValidAfterTime) || 0 : 0 }))
    .catch((error: { code?: string }) => {
      if (error?.code === "auth/user-not-found") return { enabled: false, validAfterMs: 0 };
      // An Auth outage is not a verdict: the credential keeps working (revocation still applies), ask again next time.
      userStatus.delete(uid);
      logError("auth.minter_status_unreadable", "minter status unreadable", error);
      return { enabled: true, validAfterMs: 0 };
    });
  userStatus.set(uid, { at: now, standing });
  return standing;
}
