// Public phone book pages on the public host: /phone-book (approved listings, searchable by domain) and
// /d/<domain>. Rendered per request from the public part of listings only (phoneBook), cached by the CDN
// for a few minutes.
import type { Request, Response } from "express";
import { getConfig } from "../core/config";
import { createRestApp, pageCsp } from "../http/rest";
import { getPhoneBookEntry, listPhoneBook } from "../store/phoneBook";
import { normalizeDomain } from "./domain";
import { escapeHtml, jsonForScript, page, PAGE_STYLE } from "./html";
import { pageUrl } from "./service";

const CDN_CACHE = "public, max-age=300, s-maxage=600";

function notFound(res: Response, what: string): void {
  res
    .status(404)
    .set({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": "public, max-age=60, s-maxage=60" })
    .send(page("Not listed", `<h1>Not listed</h1><p>${escapeHtml(what)} has no approved voice agent listing.</p><p><a href="/phone-book">Phone book</a></p>`));
}

async function phoneBook(req: Request, res: Response): Promise<void> {
  const q = typeof req.query.q === "string" ? req.query.q.trim().slice(0, 253) : "";
  const prefix = q ? (normalizeDomain(q) ?? q.toLowerCase().replace(/^https?:\/\//, "").replace(/^www\./, "")) : "";
  const listings = await listPhoneBook({ prefix, limit: 100 });
  const rows = listings
    .map((l) => `<tr><td><a href="/d/${escapeHtml(l.domain)}">${escapeHtml(l.domain)}</a></td><td>${escapeHtml(l.businessName)}</td><td><a href="tel:${escapeHtml(l.voiceAgentPhone)}">${escapeHtml(l.voiceAgentPhone)}</a></td></tr>`)
    .join("");
  const body = `<h1>Voice agent phone book</h1>
<p>Call a business's AI voice agent. Look up a website domain:</p>
<form method="get" action="/phone-book"><input name="q" value="${escapeHtml(q)}" placeholder="example.com" aria-label="Domain"> <button>Search</button></form>
${listings.length ? `<table><thead><tr><th>Domain</th><th>Business</th><th>Voice agent</th></tr></thead><tbody>${rows}</tbody></table>` : `<p>No listing${q ? ` matches ${escapeHtml(q)}` : " yet"}.</p>`}`;
  res.set({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": CDN_CACHE }).send(page("Voice agent phone book", body));
}

async function domainPage(req: Request, res: Response): Promise<void> {
  const raw = String((req.params as { domain?: string }).domain ?? "");
  const domain = normalizeDomain(raw);
  if (!domain) return notFound(res, raw);
  if (domain !== raw) {
    res.redirect(301, `/d/${domain}`);
    return;
  }
  const listing = await getPhoneBookEntry(domain);
  if (!listing) return notFound(res, domain);
  const jsonLd = {
    "@context": "https://schema.org",
    "@type": "Organization",
    name: listing.businessName,
    url: `https://${listing.domain}`,
    contactPoint: { "@type": "ContactPoint", telephone: listing.voiceAgentPhone, contactType: "customer service", description: "AI voice agent" },
    subjectOf: { "@type": "WebPage", url: pageUrl(domain), isPartOf: `${getConfig().baseUrl}/phone-book` },
  };
  const body = `<p><a href="/phone-book">Phone book</a></p>
<h1>${escapeHtml(listing.businessName)}</h1>
<p>Website: <a href="https://${escapeHtml(listing.domain)}" rel="nofollow">${escapeHtml(listing.domain)}</a></p>
<p>AI voice agent: <a href="tel:${escapeHtml(listing.voiceAgentPhone)}">${escapeHtml(listing.voiceAgentPhone)}</a></p>`;
  res
    .set({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": CDN_CACHE })
    .send(page(`${listing.businessName} voice agent`, body, `<script type="application/ld+json">${jsonForScript(jsonLd)}</script><link rel="canonical" href="${escapeHtml(pageUrl(domain))}">`));
}

export const pagesApp = createRestApp((app) => {
  const csp = pageCsp(PAGE_STYLE);
  app.use((_req: Request, res: Response, next: () => void) => {
    res.set("Content-Security-Policy", csp);
    next();
  });
  app.get("/phone-book", phoneBook);
  app.get("/d/:domain", domainPage);
  app.use((req: Request, res: Response) => notFound(res, req.path));
}, { cors: "pages" });
