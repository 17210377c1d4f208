// The owner's alert that a code's password page is being guessed (redirect/password.ts calls it at most
// once a day per code, when the code's attempt budget runs out): a mail to the workspace's owner through
// the mail queue, and a notice on the code in the console. Neither names any address or password tried.
import { getConfig } from "../core/config";
import { setPasswordNotice, type Link } from "../store/codes";
import { mailWorkspaceOwner } from "../store/listings";
import { RATE_LIMITS } from "../core/rateLimit";

export async function alertPasswordGuessing(link: Link, at: Date): Promise<void> {
  const budget = RATE_LIMITS.passwordCodeAttempts;
  const message =
    `More than ${budget.max} passwords were tried at this code's password page within ${budget.windowSeconds / 60} minutes, from several addresses: ` +
    "someone may be guessing it. Customers who have the password still get in; guesses are now limited to one per address. " +
    "If the password was printed where many can see it, consider changing it (codes already printed keep working with the old one only until you do).";
  await setPasswordNotice(link.merchantId, link.codeId, { at: at.toISOString(), message });
  await mailWorkspaceOwner(link.merchantId, "Someone may be guessing a code's password", `${message}\nThe code: ${getConfig().createUrl}#/codes/${link.codeId}\n`);
}
