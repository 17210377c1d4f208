// The warning page of anything an operator took down: a /qr/ code (redirect/app.ts) or a GS1 item
// (gs1/resolver.ts). Here, below both, so the two answer with the same page.
import { sha256 } from "../core/hash";

export const PAGE_BASE_STYLE = "body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#111}";

export const TAKEN_DOWN_STYLE = `${PAGE_BASE_STYLE}.warn{border-left:4px solid #b91c1c;background:#fef2f2;padding:.8rem 1rem;border-radius:4px}`;

/**
 * A taken-down code's page: it names no destination (that is what was harmful) and says what to do. The
 * reason stays with the owner and the operators: a public page would hand it to whoever scans.
 */
export function takenDownPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>QR code disabled</title>
<style>${TAKEN_DOWN_STYLE}</style></head>
<body><h1>This QR code was disabled</h1>
<p class="warn">It was reported and taken down by this service's operators, because where it led may be harmful. You were not sent there.</p>
<p>Do not enter passwords or payment details on a page a QR code opens unless you trust the business that printed it. If you scanned this at a shop, let them know.</p>
<p><a href="/report">Report another code</a></p></body></html>`;
}

/** The page's CSP: its one inline style by hash (as http/rest.ts pageCsp), nothing else runs or loads. */
export const TAKEN_DOWN_CSP = `default-src 'none'; style-src 'sha256-${sha256(TAKEN_DOWN_STYLE, "base64")}'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
