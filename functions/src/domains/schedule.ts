// The hourly domain check's definition, kept apart from index.ts so HTTP functions never load the scheduler.
import { onSchedule } from "firebase-functions/v2/scheduler";

export const domainChecks = onSchedule({ schedule: "every 60 minutes", memory: "256MiB", timeoutSeconds: 540, retryCount: 1 }, async () => {
  await (await import("./service")).runDomainChecks();
});
