// Keeps the stored link and PNG of codes naming a domain on the right host as the domain changes state
// (docs/domains.md, "Codes on a domain"): detached or deleted, they fall back to the service's own host;
// active again, they come back. SVG, PDF and print files are drawn from the stored link, so they follow.
import { logWarn } from "../core/log";
import { imageStore } from "../store/images";
import { findCode } from "../store/codes";
import { codesToMove, moveCodeLink } from "../store/codeDomains";
import type { Domain } from "../store/domains";
import { carriesHost, dynamicLinkFor } from "./domains";
import { renderCodePng } from "./service";

/** Codes moved per page, ten at once; at most PAGES_MAX pages a call (the hourly check carries on). */
const PAGE = 50;
const PAGES_MAX = 20;

/**
 * Moves the codes of `merchantId` naming `domainId` to the host `domain` (undefined: deleted) gives them,
 * the stored link first (one transaction per code), then the PNG at the same path and token, drawn from
 * the committed record. Safe to run again: a code already on the right side is not in the query.
 */
export async function syncDomainCodes(merchantId: string, domainId: string, domain: Domain | undefined): Promise<{ moved: number; done: boolean }> {
  const onHost = carriesHost(domain);
  let moved = 0;
  for (let page = 0; page < PAGES_MAX; page++) {
    const codes = await codesToMove(merchantId, domainId, onHost, PAGE);
    if (codes.length === 0) return { moved, done: true };
    let progressed = 0;
    for (let i = 0; i < codes.length; i += 10) {
      const results = await Promise.allSettled(
        codes.slice(i, i + 10).map(async (code) => {
          const link = dynamicLinkFor(code.uniqueQRCodeID, onHost && domain ? domain.hostname : null);
          if (!(await moveCodeLink(merchantId, code.codeId, domainId, onHost, link))) return;
          const latest = await findCode(merchantId, { codeId: code.codeId });
          await imageStore().put(latest.imagePath, await renderCodePng(latest), latest.imageToken);
        }),
      );
      for (const r of results) {
        if (r.status === "fulfilled") progressed++;
        else logWarn("codes.domain_move_failed", "a code's link did not follow its domain", { merchantId, domainId, reason: r.reason instanceof Error ? r.reason.message : String(r.reason) });
      }
    }
    moved += progressed;
    // A page none of whose codes moved would come back the same: stop, the next check tries again.
    if (codes.length < PAGE || progressed === 0) return { moved, done: codes.length < PAGE && progressed === codes.length };
  }
  return { moved, done: false };
}
