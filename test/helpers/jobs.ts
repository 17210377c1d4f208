// Catalogue jobs as a client drives them over REST, for the tests that run jobs (test/service/workloads/jobs,
// test/stack/job-kill).
import { appUrl } from "./env";
import { firestore } from "./merchants";
import { eventually } from "./poll";

export async function api(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${appUrl()}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

export const csvOf = (n: number, prefix: string, from = 0) =>
  ["title,url,campaign,externalRef", ...Array.from({ length: n }, (_, k) => `Item ${from + k},https://shop.example/${prefix}/${from + k},${prefix},${prefix}-${from + k}`)].join("\n");

export async function finished(key: string, jobId: string, timeoutMs = 600_000) {
  return eventually(
    async () => (await api(key, "GET", `/api/jobs/${jobId}`)).body,
    (job) => job.state === "done" || job.state === "failed",
    { timeoutMs, intervalMs: 500, what: `job ${jobId} to finish` },
  );
}

export const codesIn = async (merchantId: string) => (await firestore().collection("workspaces").doc(merchantId).collection("codes").count().get()).data().count;

