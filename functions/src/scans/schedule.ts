// The scan maintenance job's definition, kept apart from index.ts so HTTP functions never load the scheduler.
import { onSchedule } from "firebase-functions/v2/scheduler";
import { logInfo } from "../core/log";

export const scanMaintenance = onSchedule({ schedule: "every 10 minutes", memory: "256MiB", timeoutSeconds: 540, retryCount: 3 }, async () => {
  const result = await (await import("./maintenance")).runScanMaintenance();
  logInfo("scan.maintenance_ran", "scan maintenance", result);
});
