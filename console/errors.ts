// What a person sees when something fails: a sentence that says what happened and what to do next, never
// a raw exception ("SyntaxError: Unexpected token <", "Firebase: Error (auth/wrong-password).").

const AUTH_MESSAGES: Record<string, string> = {
  "auth/invalid-credential": "That email and password do not match an account. Check both, or create an account.",
  "auth/wrong-password": "That password is not right. Try again, or reset it with your administrator.",
  "auth/user-not-found": "There is no account with that email. Check it, or create an account.",
  "auth/invalid-email": "That email address is not valid. Check it and try again.",
  "auth/missing-password": "Enter your password, then sign in.",
  "auth/weak-password": "Choose a password of at least 6 characters.",
  "auth/email-already-in-use": "An account with that email exists already. Sign in instead.",
  "auth/too-many-requests": "Too many attempts. Wait a few minutes, then try again.",
  "auth/network-request-failed": "The sign-in service could not be reached. Check your connection and try again.",
  "auth/popup-closed-by-user": "The sign-in window was closed before signing in. Try again and finish in that window.",
  "auth/popup-blocked": "The browser blocked the sign-in window. Allow pop-ups for this site and try again.",
  "auth/user-disabled": "This account is disabled. Ask your workspace owner or support to enable it.",
};

/** A failure already worded for a person. */
export class ShownError extends Error {}

/** The sentence to show for anything thrown. */
export function messageFor(error: unknown): string {
  if (error instanceof ShownError) return error.message;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && code.startsWith("auth/")) return AUTH_MESSAGES[code] ?? "Signing in did not work. Try again; if it keeps failing, reload the page.";
  if (error instanceof TypeError && /fetch|network/i.test(error.message)) return "The service could not be reached. Check your connection and try again.";
  const message = error instanceof Error ? error.message : String(error);
  return /[.!?]$/.test(message) ? message : `${message}. Try again; if it keeps failing, reload the page.`;
}

/**
 * The body of a service answer, or a ShownError for an answer that is not JSON (a proxy's error page, a
 * timeout) or for an error answer (its message and hint, and its request id for support when it has one).
 */
export async function readAnswer<T>(res: Response): Promise<T> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new ShownError(`The service answered in a way the console does not understand (HTTP ${res.status}). Wait a moment and try again; if it keeps happening, reload the page.`);
  }
  // The answer's shape is the route's response schema (console/api.ts), checked by the tests.
  if (res.ok) return body as T;
  throw new ShownError(answerMessage(res, body));
}

/** The fields of an error answer (JsonError) the console reads; anything else in `body` is ignored. */
interface ErrorAnswer {
  message?: unknown;
  hint?: unknown;
  requestId?: unknown;
}

export function answerMessage(res: Response, body: unknown): string {
  const answer: ErrorAnswer = typeof body === "object" && body !== null ? body : {};
  const what = typeof answer.message === "string" ? sentence(answer.message) : `The request failed (HTTP ${res.status}).`;
  // Hints written for programs (the API's documentation, an Authorization header) mean nothing to a person.
  const forPeople = typeof answer.hint === "string" && !/\b(?:GET|POST|PUT|PATCH|DELETE) \/api|Authorization:/.test(answer.hint);
  const next = forPeople ? ` ${sentence(answer.hint as string)}` : res.status >= 400 && res.status < 500 && typeof answer.message === "string" ? "" : " Try again in a moment.";
  const id = typeof answer.requestId === "string" ? ` If you contact support, quote ${answer.requestId}.` : "";
  return `${what}${next}${id}`;
}

const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
