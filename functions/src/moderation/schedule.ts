// The destination re-check's schedule (moderation/recheck.ts), apart from index.ts so HTTP functions never load the scheduler.
import { onSchedule } from "firebase-functions/v2/scheduler";
import { logInfo } from "../core/log";

export const destinationRecheck = onSchedule({ schedule: "every 60 minutes", memory: "256MiB", timeoutSeconds: 540, retryCount: 1 }, async () => {
  const result = await (await import("./recheck")).runDestinationRecheck();
  logInfo("abuse.recheck_finished", "destination re-check", { looked: result.looked, takenDown: result.takenDown.length, stoppedBy: result.stoppedBy });
});
