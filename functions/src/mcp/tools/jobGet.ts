import { z } from "zod";
import { defineTool, READ_ONLY } from "../tool";
import { JobParams, JobSchema } from "../../jobs/schemas";
import { getJob } from "../../jobs/service";

export const jobGetTool = defineTool({
  name: "svc.job.get",
  title: "Follow a catalogue job",
  description: "A job's state (running, packaging, done, failed), counts of codes created, reused and failed, refused rows and, once built, the print package's URL.",
  scope: "merchant:read",
  annotations: READ_ONLY,
  input: JobParams,
  output: JobSchema,
  handler: (args: z.infer<typeof JobParams>, { caller }) => getJob(caller.merchantId, args.jobId),
  summarize: (r) => `Job ${r.jobId}: ${r.state}, ${r.progress}% (${r.created} created, ${r.reused} reused, ${r.failed} failed)${r.packageUrl ? `. Package: ${r.packageUrl}` : ""}.`,
});
