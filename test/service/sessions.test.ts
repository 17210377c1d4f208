// Sessions as a domain action (functions/src/auth/sessions.ts), called in process against the Auth emulator:
// what every surface gets when it starts, verifies or ends a session, without HTTP in between. The console's
// routes over it are tested in hardening.test.ts ("sessions and keys").
import assert from "node:assert/strict";
import { AppError } from "../../functions/src/core/errors";
import { auth } from "../../functions/src/core/firebase";
import { endSession, SESSION_MAX_AGE_MS, startSession, verifySession, verifySignIn } from "../../functions/src/auth/sessions";
import { signUp, tokenSignedInAgo } from "../helpers/merchants";
import { nextWholeSecond } from "../helpers/clock";

/** Asserts that `action` is refused with INVALID_TOKEN and a message matching `message`. */
async function refused(action: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(action, (error: unknown) => {
    assert.ok(error instanceof AppError, `an AppError, not ${String(error)}`);
    assert.equal(error.code, "INVALID_TOKEN");
    assert.match(error.message, message);
    return true;
  });
}

describe("sessions (domain: auth/sessions.ts)", () => {
  it("starts a session only from a sign-in of the last 5 minutes", async () => {
    const user = await signUp();
    await refused(startSession(await tokenSignedInAgo(user, 10 * 60)), /sign-in from the last 5 minutes/);
    const session = await startSession(await tokenSignedInAgo(user, 4 * 60));
    assert.equal(session.uid, user.uid);
    assert.equal(session.maxAgeMs, SESSION_MAX_AGE_MS);
    assert.equal(SESSION_MAX_AGE_MS, 5 * 24 * 60 * 60 * 1000, "five days, as the console's cookie says");
    const verified = await verifySession(session.cookie);
    assert.deepEqual(verified, { uid: user.uid, email: user.email, authMethod: "session-cookie", isAdmin: false });
  });

  it("refuses a token that is not one, and a session cookie that is not one", async () => {
    await refused(startSession("not-a-token"), /^ID token is invalid or expired$/);
    await refused(verifySignIn("not-a-token"), /^ID token is invalid or expired$/);
    await refused(verifySession("not-a-cookie"), /^Session cookie is invalid or expired$/);
  });

  it("ending a session stops its cookie and the sign-in it came from, everywhere at once", async () => {
    const user = await signUp();
    const first = await startSession(user.idToken);
    const second = await startSession(user.idToken);
    assert.equal((await verifySignIn(user.idToken)).authMethod, "id-token");
    // Revocation is recorded in whole seconds and compared with the sign-in second: step past it.
    await nextWholeSecond();
    await endSession(user.uid);
    await refused(verifySession(first.cookie), /^Session cookie is invalid or expired$/);
    await refused(verifySession(second.cookie), /^Session cookie is invalid or expired$/);
    await refused(verifySignIn(user.idToken), /^ID token is invalid or expired$/);
    await refused(startSession(user.idToken), /^ID token is invalid or expired$/);
  });

  it("refuses a disabled person's sign-in and session", async () => {
    const user = await signUp();
    const session = await startSession(user.idToken);
    await auth().updateUser(user.uid, { disabled: true });
    await refused(startSession(user.idToken), /^ID token is invalid or expired$/);
    await refused(verifySession(session.cookie), /^Session cookie is invalid or expired$/);
  });
});
