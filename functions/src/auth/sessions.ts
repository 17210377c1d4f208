// Sign-ins and console sessions, whoever asks: a session starts from a fresh sign-in (a Firebase ID token)
// and is carried by a session cookie's value; a sign-in or a session is verified, with revocation, on every
// request (auth/caller.ts); ending a session revokes the person's refresh tokens, so every session of theirs
// stops at once, not only the one in this browser. Plain values in and out, refusals as AppError: the
// surface reads the credential from the request and sets or clears the cookie (console/app.ts).
import type { DecodedIdToken } from "firebase-admin/auth";
import { AppError } from "../core/errors";
import { auth } from "../core/firebase";
import { logSessionEnded, logSessionStarted } from "../core/log";

/** How long a session lasts (Firebase allows 5 minutes to 2 weeks). */
export const SESSION_MAX_AGE_MS = 5 * 24 * 60 * 60 * 1000;

/** A session starts only from a sign-in this recent: a stolen, older ID token cannot become a 5-day session. */
export const SESSION_FRESH_SIGN_IN_SECONDS = 5 * 60;

/** A signed-in Firebase user, before any workspace is attached. */
export interface VerifiedUser {
  uid: string;
  email?: string;
  authMethod: "id-token" | "session-cookie";
  isAdmin: boolean;
}

/** A session just started: `cookie` is the session cookie's value, good for `maxAgeMs`. */
export interface StartedSession {
  cookie: string;
  uid: string;
  maxAgeMs: number;
}

type Presented = VerifiedUser["authMethod"];

const REFUSED: Record<Presented, string> = {
  "id-token": "ID token is invalid or expired",
  "session-cookie": "Session cookie is invalid or expired",
};

/** What a caller may do instead, when a credential it sent to a surface is refused. */
const CALLER_HINT = "Sign in again, or use an sk-svc- API key.";

/** The token's claims, checked against revocation (signing out, a disabled account); else INVALID_TOKEN. */
async function claimsOf(kind: Presented, value: string, hint: string): Promise<DecodedIdToken> {
  try {
    return kind === "id-token" ? await auth().verifyIdToken(value, true) : await auth().verifySessionCookie(value, true);
  } catch {
    throw new AppError("INVALID_TOKEN", REFUSED[kind], { hint });
  }
}

const userOf = (claims: DecodedIdToken, authMethod: Presented): VerifiedUser => ({
  uid: claims.uid,
  email: claims.email,
  authMethod,
  isAdmin: claims.admin === true,
});

/** The user an ID token (a Bearer credential) signs in. */
export async function verifySignIn(idToken: string): Promise<VerifiedUser> {
  return userOf(await claimsOf("id-token", idToken, CALLER_HINT), "id-token");
}

/** The user a session cookie's value belongs to, while the session lasts and was not ended. */
export async function verifySession(cookie: string): Promise<VerifiedUser> {
  return userOf(await claimsOf("session-cookie", cookie, CALLER_HINT), "session-cookie");
}

/**
 * Starts a session from an ID token whose sign-in is at most SESSION_FRESH_SIGN_IN_SECONDS old; a stale,
 * revoked or invalid token is refused (INVALID_TOKEN) and nothing is minted.
 */
export async function startSession(idToken: string): Promise<StartedSession> {
  const claims = await claimsOf("id-token", idToken, "Sign in again.");
  if (!(Date.now() / 1000 - claims.auth_time <= SESSION_FRESH_SIGN_IN_SECONDS)) {
    throw new AppError("INVALID_TOKEN", `A console session needs a sign-in from the last ${SESSION_FRESH_SIGN_IN_SECONDS / 60} minutes`, {
      hint: "Sign in again, then start the session.",
    });
  }
  let cookie: string;
  try {
    cookie = await auth().createSessionCookie(idToken, { expiresIn: SESSION_MAX_AGE_MS });
  } catch {
    throw new AppError("INVALID_TOKEN", REFUSED["id-token"], { hint: "Sign in again." });
  }
  logSessionStarted({ uid: claims.uid });
  return { cookie, uid: claims.uid, maxAgeMs: SESSION_MAX_AGE_MS };
}

/**
 * Ends every session of `uid`: its refresh tokens are revoked, so its session cookies (verified with
 * revocation on every request) and ID tokens stop working everywhere at once.
 */
export async function endSession(uid: string): Promise<void> {
  await auth().revokeRefreshTokens(uid);
  logSessionEnded({ uid });
}
