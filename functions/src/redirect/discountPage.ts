// GET /qr/<id>/discount: the page a discount code's scan goes to first (attribution/discounts.ts): the
// person's one-time code to show at the till, and a link on to the code's destination.
import type { IncomingMessage, ServerResponse } from "node:http";
import { discountFor } from "../attribution/discounts";
import { escapeHtml } from "../listings/html";
import { pageCsp } from "../http/rest";

export const DISCOUNT_PATH = /^\/qr\/([0-9A-Za-z]{12})\/discount(?:\?|$)/;
const STYLE = "body{font:18px/1.5 system-ui,sans-serif;max-width:28em;margin:3em auto;padding:0 1em;text-align:center}.code{font:700 2em ui-monospace,monospace;letter-spacing:.1em;border:2px dashed;padding:.4em;margin:1em 0}";

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;
}

export async function sendDiscountPage(req: IncomingMessage, res: ServerResponse, id: string, headers: Record<string, string>): Promise<void> {
  const url = req.url ?? "";
  const query = new URLSearchParams(url.includes("?") ? url.slice(url.indexOf("?") + 1) : "");
  const view = await discountFor(id, query);
  const onward = view.kind === "missing" ? "" : `<p><a href="${escapeHtml(view.onward)}">Continue</a></p>`;
  const html =
    view.kind === "missing"
      ? page("Not found", "<h1>This offer is not available</h1><p>Scan the code again to get one.</p>")
      : view.kind === "empty"
        ? page("No codes left", `<h1>All codes are handed out</h1><p>Sorry: none is left for now.</p>${onward}`)
        : page("Your discount code", `<h1>Your discount code</h1><p>Show it at the till. It works once.</p><div class="code">${escapeHtml(view.code)}</div>${onward}`);
  res.removeHeader("X-Powered-By");
  res
    .writeHead(view.kind === "missing" ? 404 : 200, { ...headers, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": pageCsp(STYLE), "Referrer-Policy": "no-referrer" })
    .end(req.method === "HEAD" ? undefined : html);
}
