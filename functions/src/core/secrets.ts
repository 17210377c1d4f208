// Secret Manager values, and which function may read which. Deployed, a function sees only the secrets
// it declares (Cloud Run mounts those alone); the functions emulator hands every secret of
// functions/.secret.local to every function. A function that forgot to declare one would work locally
// and, deployed, read "" (firebase-functions only warns): a webhook secret sealed under an empty key.
// So each function's secrets are declared here once, index.ts and the task functions bind exactly these,
// and secretValue() refuses a read the running function has not declared, on the local stack as deployed.
import { defineSecret } from "firebase-functions/params";

export const SECRETS = {
  /** Key of the sandbox's address hashes (the local stack writes functions/.secret.local). */
  SANDBOX_IP_SALT: defineSecret("SANDBOX_IP_SALT"),
  /** Key that seals webhook signing secrets. */
  WEBHOOK_SECRET_KEY: defineSecret("WEBHOOK_SECRET_KEY"),
  /** Keys that seal webhook delivery tasks (core/taskSeal.ts: a key ring, the first seals, older ones open until a date). */
  TASK_KEYS_WEBHOOK_DELIVERY: defineSecret("TASK_KEYS_WEBHOOK_DELIVERY"),
  /** Keys that seal catalogue queue tasks: job steps and link syncs (core/taskSeal.ts). */
  TASK_KEYS_CATALOGUE_JOB: defineSecret("TASK_KEYS_CATALOGUE_JOB"),
};
export type SecretName = keyof typeof SECRETS;

/** The secrets each function binds (by export name); a function not listed binds none. */
export const FUNCTION_SECRETS: Readonly<Record<string, readonly SecretName[]>> = {
  // Creating a webhook and rotating its secret seal the new secret; deliveries open it. A function binds a
  // task purpose's keys when it can queue (or, for the task functions, run) a task of that purpose: code
  // events queue deliveries wherever codes change; jobs and link syncs (webhook create, delete, disable) are
  // queued only by the job and webhook surfaces and by the two task functions. The public redirect and
  // sandbox hold no key that can forge a job step; oauth queues nothing and holds none.
  sandbox: ["SANDBOX_IP_SALT", "TASK_KEYS_WEBHOOK_DELIVERY"],
  mcp: ["WEBHOOK_SECRET_KEY", "TASK_KEYS_WEBHOOK_DELIVERY", "TASK_KEYS_CATALOGUE_JOB"],
  consoleApi: ["WEBHOOK_SECRET_KEY", "TASK_KEYS_WEBHOOK_DELIVERY", "TASK_KEYS_CATALOGUE_JOB"],
  bulk: ["TASK_KEYS_WEBHOOK_DELIVERY", "TASK_KEYS_CATALOGUE_JOB"],
  redirect: ["TASK_KEYS_WEBHOOK_DELIVERY"],
  // The scan consumer queues the webhook notices of the scans it counts (redirect/scanConsumer.ts).
  scanConsumer: ["TASK_KEYS_WEBHOOK_DELIVERY"],
  webhookDelivery: ["WEBHOOK_SECRET_KEY", "TASK_KEYS_WEBHOOK_DELIVERY", "TASK_KEYS_CATALOGUE_JOB"],
  catalogueJob: ["TASK_KEYS_WEBHOOK_DELIVERY", "TASK_KEYS_CATALOGUE_JOB"],
};

/** The params a function binds, for its `secrets` option. */
export const secretsOf = (fn: string) => (FUNCTION_SECRETS[fn] ?? []).map((name) => SECRETS[name]);

export class SecretNotBoundError extends Error {}

/**
 * A secret's value, as the running function may read it: throws when the function (FUNCTION_TARGET, set
 * deployed and by the emulator) has not declared it. Outside a function (unit tests, scripts) there is
 * nothing to check. "" when the secret has no value.
 */
export function secretValue(name: SecretName, target = process.env.FUNCTION_TARGET): string {
  if (target && !(FUNCTION_SECRETS[target] ?? []).includes(name)) throw new SecretNotBoundError(`${name} is not bound to the ${target} function: add it to FUNCTION_SECRETS (core/secrets.ts)`);
  return SECRETS[name].value();
}
