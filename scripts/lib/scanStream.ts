// The scan stream's infrastructure (functions/src/store/scanEvents.ts), made in two places from the same
// definitions: on the local Pub/Sub emulator at every stack start (schema and topic, over its REST API),
// and in a real project by `npm run deploy:scan-stream` (scripts/deploy-scan-stream.ts), which runs the
// gcloud and bq commands built here: `firebase deploy` makes none of it (BigQuery subscriptions are not
// among what it deploys).
import path from "node:path";
import { CONSUMER_DELIVERY, SCAN_STREAM, avroSchema, bigQuerySchema } from "../../functions/src/store/scanEvents";
import { CONVERSION_STREAM, conversionAvroSchema, conversionBigQuerySchema } from "../../functions/src/store/conversionEvents";

/** The files the commands read: the Avro schema and the table's schema, written by the deploy script. */
export interface StreamFiles {
  avroSchemaFile: string;
  tableSchemaFile: string;
  /** The conversion stream's (store/conversionEvents.ts). */
  conversionAvroSchemaFile: string;
  conversionTableSchemaFile: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n";

export function streamFileContents(): { avro: string; table: string; conversionAvro: string; conversionTable: string } {
  return { avro: json(avroSchema()), table: json(bigQuerySchema()), conversionAvro: json(conversionAvroSchema()), conversionTable: json(conversionBigQuerySchema()) };
}

export function streamFilesIn(dir: string): StreamFiles {
  return {
    avroSchemaFile: path.join(dir, `${SCAN_STREAM.schema}.avsc`),
    tableSchemaFile: path.join(dir, `${SCAN_STREAM.table}.bq.json`),
    conversionAvroSchemaFile: path.join(dir, `${CONVERSION_STREAM.schema}.avsc`),
    conversionTableSchemaFile: path.join(dir, `${CONVERSION_STREAM.table}.bq.json`),
  };
}

export interface DeployTarget {
  project: string;
  /** The project's number, for the Pub/Sub service agent that writes the table. */
  projectNumber: string;
  /** BigQuery location of the dataset (US, EU or a region). */
  location: string;
  /** Days rows are kept: the table's partitions expire after it (the service's scan retention). */
  retentionDays: number;
  /** The deployed `scanConsumer` function's HTTPS URL, which the arrivals subscription pushes to. */
  consumerUrl: string;
  /** The service account whose OIDC token each push carries (`roles/run.invoker` on scanConsumer only). */
  invoker: string;
  /** The functions' region (scanConsumer's Cloud Run service is there): DEFAULT_REGION unless deployed elsewhere. */
  region: string;
}

/**
 * The kept dead letters: held Pub/Sub's longest (31 days; the default is 7) and never deleted for want of
 * a subscriber (the default deletes a subscription idle for 31 days). A replay (scripts/lib/scanReplay.ts)
 * acknowledges a message only once it is published again: the deadline covers that publish's bound.
 */
export const DEAD_LETTERS_KEPT = { retention: "31d", ackDeadlineSeconds: 60 } as const;

/** The Cloud Run service behind a v2 function: its name in lower case. */
const CONSUMER_SERVICE = "scanconsumer";

/**
 * The commands that create the stream in a project, in order: schema, topic enforcing it, dataset, table
 * (partitioned by day of `at`, clustered by workspace and code, partitions expiring with the retention),
 * write access for Pub/Sub's service agent on that table only, and the BigQuery subscription writing
 * the topic's fields and its metadata (message_id, publish_time) as columns.
 */
export function deployCommands(target: DeployTarget, files: StreamFiles): string[][] {
  const { project } = target;
  const [schema, topic, ...rest] = streamCommands(target, SCAN_STREAM, files.avroSchemaFile, files.tableSchemaFile);
  const dataset = ["bq", `--project_id=${project}`, "mk", "--dataset", `--location=${target.location}`, `--description=Scan events from the ${SCAN_STREAM.topic} topic`, `${project}:${SCAN_STREAM.dataset}`];
  return [schema, topic, dataset, ...rest, ...consumerCommands(target), ...conversionCommands(target, files)];
}

/**
 * The conversion stream (issue 61) in the scan stream's dataset, made as the scan stream is. Part of a new
 * project's commands and of `--upgrade` for a project made before it.
 */
export function conversionCommands(target: Pick<DeployTarget, "project" | "projectNumber" | "retentionDays">, files: StreamFiles): string[][] {
  return streamCommands(target, CONVERSION_STREAM, files.conversionAvroSchemaFile, files.conversionTableSchemaFile);
}

/** A stream's names: its Pub/Sub schema, topic and BigQuery subscription, and its table's dataset and name. */
interface StreamNames {
  schema: string;
  topic: string;
  subscription: string;
  dataset: string;
  table: string;
}

/**
 * One stream's commands, its dataset aside: the schema, the topic enforcing it, the table (partitioned by
 * day of `at`, clustered by workspace and code, expiring with the retention), the service agent's write
 * access to that table only, and the BigQuery subscription writing the topic's fields and its metadata.
 */
function streamCommands(target: Pick<DeployTarget, "project" | "projectNumber" | "retentionDays">, stream: StreamNames, avroSchemaFile: string, tableSchemaFile: string): string[][] {
  const { project } = target;
  const table = `${project}:${stream.dataset}.${stream.table}`;
  const agent = `serviceAccount:service-${target.projectNumber}@gcp-sa-pubsub.iam.gserviceaccount.com`;
  return [
    ["gcloud", "pubsub", "schemas", "create", stream.schema, "--type=avro", `--definition-file=${avroSchemaFile}`, `--project=${project}`],
    ["gcloud", "pubsub", "topics", "create", stream.topic, `--schema=${stream.schema}`, "--message-encoding=json", `--project=${project}`],
    [
      "bq",
      `--project_id=${project}`,
      "mk",
      "--table",
      "--time_partitioning_field=at",
      "--time_partitioning_type=DAY",
      `--time_partitioning_expiration=${target.retentionDays * 86_400}`,
      "--clustering_fields=merchant_id,code_id",
      `--schema=${tableSchemaFile}`,
      table,
    ],
    ["bq", `--project_id=${project}`, "add-iam-policy-binding", `--member=${agent}`, "--role=roles/bigquery.dataEditor", table],
    [
      "gcloud",
      "pubsub",
      "subscriptions",
      "create",
      stream.subscription,
      `--topic=${stream.topic}`,
      `--bigquery-table=${project}.${stream.dataset}.${stream.table}`,
      "--use-topic-schema",
      "--write-metadata",
      `--project=${project}`,
    ],
  ];
}

/**
 * The scan consumer's part (issue 56): the push's service account made scanConsumer's one invoker (the
 * function is deployed private; granted first so the first push is let in), the arrivals topic (the scan's
 * one durable record), its dead letters and a subscription keeping them for the repair (DEAD_LETTERS_KEPT), the push
 * subscription to scanConsumer with the deployed delivery policy (CONSUMER_DELIVERY), and the rights
 * Pub/Sub's service agent needs to move a message to the dead letters.
 */
function consumerCommands(target: DeployTarget): string[][] {
  const { project } = target;
  const agent = `serviceAccount:service-${target.projectNumber}@gcp-sa-pubsub.iam.gserviceaccount.com`;
  const policy = CONSUMER_DELIVERY.deployed;
  return [
    ["gcloud", "run", "services", "add-iam-policy-binding", CONSUMER_SERVICE, `--region=${target.region}`, `--member=serviceAccount:${target.invoker}`, "--role=roles/run.invoker", `--project=${project}`],
    ["gcloud", "pubsub", "topics", "create", SCAN_STREAM.arrivals, SCAN_STREAM.deadLetters, `--project=${project}`],
    [
      "gcloud",
      "pubsub",
      "subscriptions",
      "create",
      SCAN_STREAM.deadLetterSubscription,
      `--topic=${SCAN_STREAM.deadLetters}`,
      `--message-retention-duration=${DEAD_LETTERS_KEPT.retention}`,
      "--expiration-period=never",
      `--ack-deadline=${DEAD_LETTERS_KEPT.ackDeadlineSeconds}`,
      `--project=${project}`,
    ],
    [
      "gcloud",
      "pubsub",
      "subscriptions",
      "create",
      SCAN_STREAM.consumer,
      `--topic=${SCAN_STREAM.arrivals}`,
      `--push-endpoint=${target.consumerUrl}`,
      `--push-auth-service-account=${target.invoker}`,
      "--ack-deadline=60",
      `--min-retry-delay=${policy.minBackoff}`,
      `--max-retry-delay=${policy.maxBackoff}`,
      `--dead-letter-topic=${SCAN_STREAM.deadLetters}`,
      `--max-delivery-attempts=${policy.maxAttempts}`,
      `--project=${project}`,
    ],
    ["gcloud", "pubsub", "topics", "add-iam-policy-binding", SCAN_STREAM.deadLetters, `--member=${agent}`, "--role=roles/pubsub.publisher", `--project=${project}`],
    ["gcloud", "pubsub", "subscriptions", "add-iam-policy-binding", SCAN_STREAM.consumer, `--member=${agent}`, "--role=roles/pubsub.subscriber", `--project=${project}`],
  ];
}

/**
 * The commands that bring a stream made before layout 2 up to the current one, in order: the table gains
 * the new nullable columns first (`bq update` with the whole schema only adds columns), then the schema
 * gets its new revision (the topic accepts every revision, so functions of either layout publish while
 * they deploy). Nothing is removed or renamed.
 */
export function upgradeCommands(target: Pick<DeployTarget, "project">, files: StreamFiles): string[][] {
  const { project } = target;
  return [
    ["bq", `--project_id=${project}`, "update", `--schema=${files.tableSchemaFile}`, `${project}:${SCAN_STREAM.dataset}.${SCAN_STREAM.table}`],
    ["gcloud", "pubsub", "schemas", "commit", SCAN_STREAM.schema, "--type=avro", `--definition-file=${files.avroSchemaFile}`, `--project=${project}`],
  ];
}

/**
 * Creates the stream on the local Pub/Sub emulator (each kept if it exists): the schema and the stream
 * topic; the arrivals topic, the dead-letter topic and a pull subscription keeping its messages; and the
 * consumer's push subscription to `consumerEndpoint`, with the emulator's own redelivery (retry policy) and
 * dead-letter policy (checked on the gcloud emulator 0.8.20: pushes, backs off, and after the attempts moves
 * the message to the dead-letter topic with CloudPubSubDeadLetter* attributes).
 */
export async function ensureLocalScanStream(emulatorHost: string, project: string, consumerEndpoint?: string): Promise<void> {
  const base = `http://${emulatorHost}/v1/projects/${project}`;
  const call = async (method: string, url: string, body: unknown) => {
    const res = await fetch(url, { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    if (!res.ok && res.status !== 409) throw new Error(`Pub/Sub emulator: ${method} ${url} answered ${res.status} ${await res.text()}`);
  };
  const topic = (name: string) => `projects/${project}/topics/${name}`;
  await call("POST", `${base}/schemas?schemaId=${SCAN_STREAM.schema}`, { type: "AVRO", definition: streamFileContents().avro });
  await call("PUT", `${base}/topics/${SCAN_STREAM.topic}`, { schemaSettings: { schema: `projects/${project}/schemas/${SCAN_STREAM.schema}`, encoding: "JSON" } });
  await call("POST", `${base}/schemas?schemaId=${CONVERSION_STREAM.schema}`, { type: "AVRO", definition: streamFileContents().conversionAvro });
  await call("PUT", `${base}/topics/${CONVERSION_STREAM.topic}`, { schemaSettings: { schema: `projects/${project}/schemas/${CONVERSION_STREAM.schema}`, encoding: "JSON" } });
  await call("PUT", `${base}/topics/${SCAN_STREAM.arrivals}`, {});
  await call("PUT", `${base}/topics/${SCAN_STREAM.deadLetters}`, {});
  await call("PUT", `${base}/subscriptions/${SCAN_STREAM.deadLetterSubscription}`, { topic: topic(SCAN_STREAM.deadLetters), ackDeadlineSeconds: DEAD_LETTERS_KEPT.ackDeadlineSeconds });
  if (!consumerEndpoint) return; // the stack made it (a test that only makes sure the topics exist)
  await call("PUT", `${base}/subscriptions/${SCAN_STREAM.consumer}`, {
    topic: topic(SCAN_STREAM.arrivals),
    ackDeadlineSeconds: 60,
    pushConfig: { pushEndpoint: consumerEndpoint },
    retryPolicy: { minimumBackoff: CONSUMER_DELIVERY.local.minBackoff, maximumBackoff: CONSUMER_DELIVERY.local.maxBackoff },
    deadLetterPolicy: { deadLetterTopic: topic(SCAN_STREAM.deadLetters), maxDeliveryAttempts: CONSUMER_DELIVERY.local.maxAttempts },
  });
}
