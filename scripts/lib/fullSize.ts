// Which full-size tests guard which code. `npm test` runs every file at a reduced size (TEST_SCALE 0.1) so
// each path runs on every change; a file listed here runs again at full size when the branch changed a
// path it guards, against the last landed commit (TEST_CHANGED_SINCE, else origin/main, else nothing).
// test/unit/test-tiers.test.ts checks that every file and path named here exists.
import { spawnSync } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");

/** Test file -> path prefixes (files or folders) whose change makes it run at full size. */
export const FULL_SIZE_GUARDS: Record<string, string[]> = {
  "test/service/workloads/jobs.test.ts": ["functions/src/jobs/", "functions/src/store/jobQueue.ts", "functions/src/store/jobs.ts", "functions/src/bulk/jobRoutes.ts"],
  "test/service/workloads/catalogue.test.ts": ["functions/src/codes/directory.ts", "functions/src/store/catalogue.ts", "functions/src/store/search.ts"],
  "test/service/fuzz.test.ts": ["functions/src/http/", "functions/src/core/validation.ts", "functions/src/core/errors.ts"],
  "test/service/mcp-fuzz.test.ts": ["functions/src/mcp/"],
  "test/service/oauth-fuzz.test.ts": ["functions/src/oauth/"],
  "test/service/scan-truth.test.ts": ["functions/src/scans/", "functions/src/store/scans.ts", "functions/src/store/rollups.ts", "functions/src/redirect/"],
  "test/service/scan-durability.test.ts": ["functions/src/redirect/", "functions/src/scans/", "functions/src/store/scans.ts", "functions/src/store/scanStream.ts"],
  "test/service/campaign-caps.test.ts": ["functions/src/campaigns/caps.ts", "functions/src/scans/record.ts"],
  "test/service/scan-retries-crowds.test.ts": ["functions/src/scans/record.ts", "functions/src/store/scans.ts", "functions/src/store/campaignCaps.ts", "functions/src/campaigns/caps.ts", "functions/src/core/firebase.ts", "functions/src/core/firestoreTransport.ts"],
};

/** Paths changed between the last landed commit and the working tree (committed or not). */
export function changedPaths(): string[] {
  const git = (...args: string[]) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" });
  const base = process.env.TEST_CHANGED_SINCE || (git("rev-parse", "--verify", "--quiet", "origin/main").status === 0 ? "origin/main" : "");
  if (!base) return [];
  const mergeBase = git("merge-base", base, "HEAD").stdout.trim() || base;
  const changed = git("diff", "--name-only", mergeBase).stdout;
  const untracked = git("ls-files", "--others", "--exclude-standard").stdout;
  return `${changed}\n${untracked}`.split("\n").filter(Boolean);
}

/** The full-size files whose guarded paths are among `changed`. */
export function fullSizeFilesFor(changed: string[]): string[] {
  return Object.entries(FULL_SIZE_GUARDS)
    .filter(([, guards]) => changed.some((file) => guards.some((guard) => file === guard || (guard.endsWith("/") && file.startsWith(guard)))))
    .map(([file]) => file);
}
