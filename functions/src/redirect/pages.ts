// The small HTML pages of the redirect: an unknown dynamic link, a code an operator took down, and a
// campaign that has ended (or not started) without a fallback URL, and the password pages. On a merchant's
// own host the not-found pages, and on any host a code's ended and password pages, carry the merchant's
// name and colours (PageBrand); the service's own host's not-found page names nobody.
import { CONTRAST_FLOOR, contrastRatio } from "../designs/contrast";
import { escapeHtml } from "../listings/html";
import { PAGE_BASE_STYLE, TAKEN_DOWN_STYLE, takenDownPage } from "../abuse/warningPage";

export const NOT_FOUND_STYLE = PAGE_BASE_STYLE;
export { TAKEN_DOWN_STYLE, takenDownPage };

/** A merchant's name and colours on a page: its workspace's name and, when set, colours that read well together. */
export interface PageBrand {
  name: string;
  foreground?: string;
  background?: string;
}

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

/** Whether both colours are "#RRGGBB" and text in the one reads on the other (the WCAG contrast floor). */
export function readableColours(foreground: string | undefined, background: string | undefined): boolean {
  return !!foreground && !!background && HEX_COLOUR.test(foreground) && HEX_COLOUR.test(background) && contrastRatio(foreground, background) >= CONTRAST_FLOOR;
}

/**
 * `base` in the merchant's colours (text in the foreground, the page in the background) when they read
 * together, else `base` as it is. Boxes with their own light background keep dark text; links take the text's colour.
 */
export function brandedStyle(base: string, brand?: PageBrand): string {
  const { foreground, background } = brand ?? {};
  if (!readableColours(foreground, background)) return base;
  return `${base}html{background:${background}}body{color:${foreground}}a{color:inherit}.warn{color:#111}.brand{font-weight:600;letter-spacing:.02em}`;
}

/** The page's head and the merchant's name above its heading (each escaped), for a branded page. */
function brandedPage(title: string, style: string, brand: PageBrand | undefined, body: string): string {
  const name = brand?.name ? escapeHtml(brand.name) : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>${name ? `${name}: ` : ""}${title}</title>
<style>${style}</style></head>
<body>${name ? `<p class="brand">${name}</p>` : ""}${body}</body></html>`;
}

/** The not-found page's style for `brand` (serve the page with pageCsp of it). */
export const notFoundStyle = (brand?: PageBrand) => brandedStyle(NOT_FOUND_STYLE, brand);

/**
 * An unknown or removed code (404). On a merchant's host, in its name and colours, the same page for an id
 * that does not exist and one of another workspace. Serve it with pageCsp(notFoundStyle(brand)).
 */
export function notFoundPage(brand?: PageBrand): string {
  return brandedPage("QR code not found", notFoundStyle(brand), brand, "<h1>This QR code is not active</h1><p>The code you scanned is unknown or has been removed. Ask the business for a new one.</p>");
}

/** Any other address on a merchant's served host that answers nothing (404), in its name and colours. */
export function pageNotFoundPage(brand?: PageBrand): string {
  return brandedPage("Page not found", notFoundStyle(brand), brand, "<h1>Page not found</h1><p>Nothing is served at this address. Check the address, or scan the code on the product or sign again.</p>");
}

export const ENDED_STYLE = NOT_FOUND_STYLE;

/** The merchant's branding of the ended page, as the link carries it (campaigns/service.ts EndedBrand). */
export interface EndedPageBrand {
  name: string;
  heading?: string;
  message?: string;
  foreground?: string;
  background?: string;
}

/**
 * The ended page's style: the default, or the code's design colours (text in the foreground, the page in
 * the background) when both are "#RRGGBB" and read at the WCAG contrast floor for text; else the default.
 */
export const endedStyle = (brand?: EndedPageBrand): string => brandedStyle(ENDED_STYLE, brand);

/**
 * A closed campaign's page (200, never a 404): it names no destination and says the code itself is fine.
 * Branded: the workspace's name above the merchant's heading and message (each escaped; the defaults when
 * absent), in the code's design colours. Serve it with pageCsp(endedStyle(brand)).
 */
export function endedPage(brand?: EndedPageBrand): string {
  const heading = escapeHtml(brand?.heading ?? "This campaign has ended");
  const message = escapeHtml(brand?.message ?? "The offer behind this QR code is not running right now. Thank you for scanning; ask the business what is on at the moment.");
  return brandedPage(heading, endedStyle(brand), brand, `<h1>${heading}</h1><p>${message}</p>`);
}

/** Seconds after which the busy page loads the code again (its Refresh header and meta tag). */
export const BUSY_RETRY_SECONDS = 1;

/** A "one moment" page: names no destination and loads the code again by itself after `seconds`. */
function oneMomentPage(seconds: number, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><meta http-equiv="refresh" content="${seconds}"><link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>One moment</title>
<style>${ENDED_STYLE}</style></head>
<body><h1>One moment</h1><p>${message}</p></body></html>`;
}

/** A capped code's scan that got no allowance in time (200): it names no destination and loads the code again. */
export function busyPage(): string {
  return oneMomentPage(BUSY_RETRY_SECONDS, "Many people are scanning this code right now. This page tries again by itself in a second; if it does not, reload it.");
}

/** Seconds a scanner is asked to wait (Retry-After, and the page's own refresh) when a code's link could not be read. */
export const UNAVAILABLE_RETRY_SECONDS = 2;

/** 503: the code's link could not be read in time; the page loads the code again (not a 404: the code may well exist). */
export function unavailablePage(): string {
  return oneMomentPage(UNAVAILABLE_RETRY_SECONDS, "This QR code could not be looked up just now. This page tries again by itself in a moment; if it does not, reload it.");
}

export const PASSWORD_STYLE = `${NOT_FOUND_STYLE}label{display:block;margin:1rem 0 .3rem}input{font:inherit;padding:.5rem;width:100%;box-sizing:border-box}button{font:inherit;margin-top:1rem;padding:.5rem 1.2rem}.warn{border-left:4px solid #b91c1c;background:#fef2f2;padding:.6rem 1rem;border-radius:4px}`;

/** What the password page says above its form: nothing yet, a wrong password, or a form it could not read. */
export type PasswordNotice = "none" | "wrong" | "invalid";

const NOTICES: Record<PasswordNotice, string> = {
  none: "",
  wrong: '<p class="warn" role="alert">That password is not right. Check it with whoever gave it to you and try again.</p>',
  invalid: '<p class="warn" role="alert">The form could not be read. Type the password and send it again.</p>',
};

/** The password page's style for `brand` (serve the page with pageCsp of it). */
export const passwordStyle = (brand?: PageBrand) => brandedStyle(PASSWORD_STYLE, brand);

/**
 * A password-protected code's page (200, or 401 after a wrong password): a form posting the password to
 * the code's own address, in the merchant's name and colours (the link's ended-page branding). It names
 * nothing of where the right password leads.
 */
export function passwordPage(notice: PasswordNotice = "none", brand?: PageBrand): string {
  return brandedPage(
    "Password needed",
    passwordStyle(brand),
    brand,
    `<h1>Password needed</h1><p>The business that printed this QR code protected it with a password.</p>${NOTICES[notice]}
<form method="post"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="128" autofocus><button type="submit">Open</button></form>`,
  );
}

/** Too many password attempts from one address (429): when to try again. */
export function passwordLimitedPage(retryAfterSeconds: number, why = "Too many passwords were tried from this network."): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  const wait = retryAfterSeconds < 60 ? `${Math.max(1, Math.ceil(retryAfterSeconds))} second${retryAfterSeconds <= 1 ? "" : "s"}` : `${minutes} minute${minutes === 1 ? "" : "s"}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>Too many attempts</title>
<style>${PASSWORD_STYLE}</style></head>
<body><h1>Too many attempts</h1><p class="warn">${escapeHtml(why)} Try again in ${wait}.</p></body></html>`;
}

/** A password form that cannot be taken (403): sent from another site, or not from this service's page. */
export function passwordRefusedPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>Not accepted</title>
<style>${PASSWORD_STYLE}</style></head>
<body><h1>Not accepted</h1><p>A password for this code can only be sent from its own page. Scan the code again and type the password there.</p></body></html>`;
}

/**
 * The right password's answer (200): the page opens where the password leads by a meta refresh, with a
 * link for a browser that does not follow it. Not a 303: browsers hold a form's redirects to the page's
 * `form-action 'self'`, and widening it would name the destination's site before the password.
 */
export function passwordAcceptedPage(url: string): string {
  const href = escapeHtml(url);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><meta http-equiv="refresh" content="0;url=${href}"><link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>Opening</title>
<style>${PASSWORD_STYLE}</style></head>
<body><h1>Opening…</h1><p>The password is right. If nothing opens, <a href="${href}" id="continue">continue here</a>.</p></body></html>`;
}
