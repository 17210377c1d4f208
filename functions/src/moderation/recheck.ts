// The scheduled re-check of live destinations against the blocklist (docs/decisions.md, "Re-checking
// live destinations"). Each run spends at most its share of a daily lookup budget, in this order:
//   1. destinations queued when the lookup failed at create or re-point (abuse/service.ts), oldest first;
//   2. the destinations of yesterday's most-scanned codes and GS1 items (people's scans, every workspace),
//      continuing where the last run stopped.
// A listed destination takes its code down, or its GS1 item (any of its links), and the owner is mailed.
// When the lookup fails (quota spent, outage) the run stops where it is: the next run resumes there, and
// meanwhile new destinations follow the failed-lookup rules (refused for the sandbox and new workspaces,
// queued otherwise).
import { checkDestination, type SafeBrowsingLookup } from "../abuse/blocklist";
import { logInfo } from "../core/log";
import { dayKey } from "../scans/classify";
import { findCodesByDestination, readCodes } from "../store/codes";
import { findGs1ItemsByHref, gs1CodeIdOf, gs1ItemIdOfCodeId, readGs1ItemById } from "../store/gs1Items";
import { finishRecheck, mostScannedOn, noteRecheckAttempt, oldestRechecks, readRecheckCursor, writeRecheckCursor } from "../store/rechecks";
import { takeDown } from "./service";

/** Lookups the re-check may spend a day (Safe Browsing's default quota is 10,000 a day; the rest is left to creates). */
export const RECHECK_DAILY_BUDGET = 4_800;
/** Runs a day (the schedule: every hour): each spends at most its share of the budget. */
export const RECHECK_RUNS_PER_DAY = 24;
/** Codes and items read per page of yesterday's most-scanned list. */
const PAGE = 100;

export interface RecheckResult {
  looked: number;
  takenDown: string[];
  stoppedBy: "budget" | "lookup-failed" | "done";
}

interface Deps {
  now?: Date;
  safeBrowsing?: SafeBrowsingLookup | null;
  /** This run's share; default RECHECK_DAILY_BUDGET / RECHECK_RUNS_PER_DAY. */
  budget?: number;
}

export async function runDestinationRecheck(deps: Deps = {}): Promise<RecheckResult> {
  const now = deps.now ?? new Date();
  let left = deps.budget ?? Math.ceil(RECHECK_DAILY_BUDGET / RECHECK_RUNS_PER_DAY);
  const result: RecheckResult = { looked: 0, takenDown: [], stoppedBy: "done" };
  /** One lookup: "listed" (with its threat), "clean", or "failed" (the run stops). */
  const look = async (url: string): Promise<{ listed: string } | "clean" | "failed"> => {
    left -= 1;
    result.looked += 1;
    const verdict = await checkDestination(url, { safeBrowsing: deps.safeBrowsing, now: now.getTime() });
    if (verdict.blocked) return { listed: verdict.threat };
    return verdict.unchecked ? "failed" : "clean";
  };
  const reason = (threat: string) => `Its destination is listed as a phishing or malware site (${threat})`;

  for (const queued of await oldestRechecks(Math.max(0, left))) {
    if (left <= 0) return { ...result, stoppedBy: "budget" };
    const verdict = await look(queued.url);
    if (verdict === "failed") {
      await noteRecheckAttempt(queued.id, queued.attempts + 1);
      return { ...result, stoppedBy: "lookup-failed" };
    }
    if (verdict !== "clean") {
      for (const code of await findCodesByDestination(queued.merchantId, queued.url)) {
        if (code.takenDown || !code.uniqueQRCodeID) continue;
        await takeDown(code.uniqueQRCodeID, reason(verdict.listed), "blocklist-recheck");
        result.takenDown.push(code.uniqueQRCodeID);
      }
      for (const item of await findGs1ItemsByHref(queued.merchantId, queued.url)) {
        if (item.takenDown) continue;
        await takeDown(gs1CodeIdOf(item.itemId), reason(verdict.listed), "blocklist-recheck");
        result.takenDown.push(gs1CodeIdOf(item.itemId));
      }
    }
    await finishRecheck(queued.id);
  }

  const day = dayKey(new Date(now.getTime() - 86_400_000));
  const stored = await readRecheckCursor();
  const cursor = stored?.day === day ? stored : { day, offset: 0, spent: 0 };
  const dayLeft = RECHECK_DAILY_BUDGET - cursor.spent;
  left = Math.min(left, dayLeft);
  const save = () => writeRecheckCursor({ ...cursor, spent: cursor.spent + result.looked });
  while (left > 0) {
    const page = await mostScannedOn(day, cursor.offset, PAGE);
    if (!page.length) break;
    for (const subject of page) {
      if (left <= 0) {
        await save();
        return { ...result, stoppedBy: "budget" };
      }
      // What this subject sends people to, and how to take it down: a GS1 item's links, or a dynamic code's destination.
      const itemId = gs1ItemIdOfCodeId(subject.codeId);
      const item = itemId === undefined ? undefined : await readGs1ItemById(itemId);
      const code = itemId === undefined ? (await readCodes(subject.merchantId, [subject.codeId]))[0] : undefined;
      const live = item ? !item.takenDown : Boolean(code?.dynamic && code.uniqueQRCodeID && !code.takenDown);
      const targets = !live ? [] : item ? [...new Set(item.links.map((l) => l.href))] : [code!.destinationUrl];
      const reference = item ? subject.codeId : code?.uniqueQRCodeID;
      for (const href of targets) {
        const verdict = await look(href);
        if (verdict === "failed") {
          await save();
          return { ...result, stoppedBy: "lookup-failed" };
        }
        if (verdict !== "clean" && reference) {
          await takeDown(reference, reason(verdict.listed), "blocklist-recheck");
          result.takenDown.push(reference);
          break;
        }
      }
      cursor.offset += 1;
    }
  }
  await save();
  logInfo("abuse.recheck_ran", "destination re-check", { looked: result.looked, takenDown: result.takenDown.length });
  return { ...result, stoppedBy: left <= 0 ? "budget" : "done" };
}
