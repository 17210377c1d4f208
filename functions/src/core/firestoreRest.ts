// Firestore's REST API called directly, for the two requests every keyed call makes: reading the key's
// record (documents:batchGet) and writing the call's audit event (documents:commit). The Firestore client
// turns the same data through its own validation, protobuf objects, proto3 JSON and gax's call machinery
// before the same JSON goes out; on the tool server that was half the CPU of a call (docs/performance.md,
// issue 62, fifth stop). Everything else goes through the client.
//
// Same HTTP leg as the client (core/firestoreTransport.ts: signing, keep-alive agents), the same bounds as
// the client's commits (COMMIT_RETRY_BUDGET_MS in all, COMMIT_ATTEMPT_TIMEOUT_MS an attempt), and the
// same retried codes. Values are coded as the client codes them (a safe integer as an integer, a Date or
// Timestamp as a timestamp) and read back as it reads them (timestamps as Timestamps, integers as numbers).
import { GeoPoint, Timestamp, type DocumentData } from "firebase-admin/firestore";
import { COMMIT_ATTEMPT_TIMEOUT_MS, COMMIT_RETRY_BUDGET_MS, db, firestoreHttp, firestoreRestOrigin } from "./firebase";
import { projectId } from "./config";

/** A Firestore value in the REST API's JSON (google.firestore.v1.Value). */
export type RestValue =
  | { nullValue: null }
  | { booleanValue: boolean }
  | { integerValue: string }
  | { doubleValue: number | string }
  | { timestampValue: string }
  | { stringValue: string }
  | { bytesValue: string }
  | { referenceValue: string }
  | { geoPointValue: { latitude?: number; longitude?: number } }
  | { arrayValue: { values?: RestValue[] } }
  | { mapValue: { fields?: Record<string, RestValue> } };

export type RestFields = Record<string, RestValue>;

/** A failed request, with its gRPC status as `code` (what gax's errors carry; core/errors.ts reads it). */
export class FirestoreRestError extends Error {
  constructor(
    readonly code: number,
    readonly status: string,
    message: string,
  ) {
    super(`${status}: ${message}`);
    this.name = "FirestoreRestError";
  }
}

const GRPC_CODES: Record<string, number> = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
};

/** What the client re-sends on: reads as its batchGetDocuments does, commits as a batch's commit does. */
const RETRIED = {
  batchGet: new Set(["DEADLINE_EXCEEDED", "INTERNAL", "UNAVAILABLE"]),
  commit: new Set(["ABORTED", "RESOURCE_EXHAUSTED", "UNAVAILABLE"]),
};

function databaseName(): string {
  return `projects/${projectId()}/databases/(default)`;
}

/** A document's full name from its path under the database's documents ("apiKeys/<hash>"). */
export function documentName(path: string, database = databaseName()): string {
  return `${database}/documents/${path}`;
}

// ---- values ----

const TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

export function parseTimestamp(text: string): Timestamp {
  const match = TIMESTAMP.exec(text);
  const millis = match ? Date.parse(match[1] + match[3]) : NaN;
  if (!match || Number.isNaN(millis)) throw new TypeError(`Not an RFC 3339 timestamp: ${text.slice(0, 40)}`);
  return new Timestamp(Math.floor(millis / 1000), Number((match[2] ?? "").padEnd(9, "0")));
}

export function formatTimestamp(time: Timestamp): string {
  const whole = new Date(time.seconds * 1000).toISOString().slice(0, 19);
  return `${whole}.${String(time.nanoseconds).padStart(9, "0")}Z`;
}

/** A stored value as the client reads it. */
export function decodeValue(value: RestValue): unknown {
  if ("stringValue" in value) return value.stringValue;
  if ("timestampValue" in value) return parseTimestamp(value.timestampValue);
  if ("nullValue" in value) return null;
  if ("booleanValue" in value) return value.booleanValue;
  if ("integerValue" in value) return Number(value.integerValue);
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("arrayValue" in value) return (value.arrayValue.values ?? []).map(decodeValue);
  if ("mapValue" in value) return decodeFields(value.mapValue.fields ?? {});
  if ("bytesValue" in value) return Buffer.from(value.bytesValue, "base64");
  if ("geoPointValue" in value) return new GeoPoint(value.geoPointValue.latitude ?? 0, value.geoPointValue.longitude ?? 0);
  if ("referenceValue" in value) return db().doc(value.referenceValue.split("/documents/").slice(1).join("/documents/"));
  throw new TypeError(`Unknown Firestore value: ${Object.keys(value as object).join(",")}`);
}

export function decodeFields(fields: RestFields): DocumentData {
  const data: DocumentData = {};
  for (const name in fields) data[name] = decodeValue(fields[name]);
  return data;
}

/**
 * A value as the client stores it. Anything else throws before a request is sent: what the client refuses
 * (undefined, a function, a class instance) and a few things it takes that no caller here writes (a Map,
 * a DocumentReference, FieldValue sentinels: server times go in RestWrite.serverTimes). Nested arrays and
 * reserved `__name__` keys are left to Firestore, which refuses them (INVALID_ARGUMENT) as it does the client's.
 */
export function encodeValue(value: unknown): RestValue {
  switch (typeof value) {
    case "string":
      return { stringValue: value };
    case "boolean":
      return { booleanValue: value };
    case "number":
      if (Number.isSafeInteger(value) && !Object.is(value, -0)) return { integerValue: String(value) };
      return { doubleValue: Number.isFinite(value) ? value : String(value) };
    case "object":
      if (value === null) return { nullValue: null };
      if (value instanceof Timestamp) return { timestampValue: formatTimestamp(value) };
      if (value instanceof Date) return { timestampValue: formatTimestamp(Timestamp.fromDate(value)) };
      if (Array.isArray(value)) return { arrayValue: { values: value.map(encodeValue) } };
      if (value instanceof Uint8Array) return { bytesValue: Buffer.from(value).toString("base64") };
      if (value instanceof GeoPoint) return { geoPointValue: { latitude: value.latitude, longitude: value.longitude } };
      if (Object.getPrototypeOf(value) === Object.prototype) return { mapValue: { fields: encodeFields(value as Record<string, unknown>) } };
  }
  throw new TypeError(`Cannot store ${typeof value === "object" ? "this object" : typeof value} in Firestore`);
}

export function encodeFields(data: Record<string, unknown>): RestFields {
  const fields: RestFields = {};
  for (const name in data) fields[name] = encodeValue(data[name]);
  return fields;
}

// ---- requests ----

interface ErrorBody {
  error?: { code?: number; status?: string; message?: string };
}

/** gax's reading of an HTTP status without a gRPC one (google-gax status.js): other 4xx FAILED_PRECONDITION, other 5xx INTERNAL. */
const BY_HTTP_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  416: "OUT_OF_RANGE",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  501: "UNIMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

function failure(status: number, body: unknown): FirestoreRestError {
  const error = (Array.isArray(body) ? (body as ErrorBody[]).find((part) => part?.error) : (body as ErrorBody | undefined))?.error;
  // Without a status in the body (a proxy's page, say), the HTTP status says what kind of failure it was.
  const fromHttp = BY_HTTP_STATUS[status] ?? (status >= 400 && status < 500 ? "FAILED_PRECONDITION" : status >= 500 ? "INTERNAL" : "UNKNOWN");
  const name = error?.status && error.status in GRPC_CODES ? error.status : fromHttp;
  return new FirestoreRestError(GRPC_CODES[name], name, error?.message ?? `HTTP ${status}`);
}

async function sendOnce(database: string, method: "batchGet" | "commit", body: string, timeoutMs: number): Promise<unknown> {
  // Outside the try: a local server without the emulator fails at once (UNAVAILABLE, core/firebase.ts), unretried.
  const http = firestoreHttp();
  const url = `${firestoreRestOrigin()}/v1/${database}/documents:${method}`;
  const signal = AbortSignal.timeout(timeoutMs);
  let text: string;
  let status: number;
  try {
    const response = await http.fetch(url, {
      method: "POST",
      headers: new Headers({ "content-type": "application/json", "x-goog-request-params": `database=${encodeURIComponent(database)}` }),
      body,
      signal,
    });
    status = response.status;
    text = Buffer.from(await response.arrayBuffer()).toString("utf8");
  } catch (error) {
    if (signal.aborted) throw new FirestoreRestError(GRPC_CODES.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", `no answer within ${timeoutMs} ms`);
    throw new FirestoreRestError(GRPC_CODES.UNAVAILABLE, "UNAVAILABLE", (error as Error).message);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // A success cut short (a connection lost mid-answer) is a transport failure; anything else says its status.
    if (status === 200) throw new FirestoreRestError(GRPC_CODES.UNAVAILABLE, "UNAVAILABLE", "the answer ended before it was whole");
    throw failure(status, undefined);
  }
  // A streamed answer (batchGet) can end in an error part after a 200.
  if (status !== 200 || (Array.isArray(parsed) && (parsed as ErrorBody[]).some((part) => part?.error))) throw failure(status, parsed);
  return parsed;
}

/** No attempt starts with less time than this left of the budget: it could only time out, perhaps after landing. */
const LEAST_ATTEMPT_MS = 500;

/** Sends, and re-sends on the retried codes (the client's first delay and growth, capped at 2 s) until the budget is spent. */
async function send(database: string, method: "batchGet" | "commit", body: string): Promise<unknown> {
  const until = Date.now() + COMMIT_RETRY_BUDGET_MS;
  for (let delay = 100; ; delay = Math.min(2_000, delay * 1.3)) {
    try {
      return await sendOnce(database, method, body, Math.min(COMMIT_ATTEMPT_TIMEOUT_MS, until - Date.now()));
    } catch (error) {
      const retried = error instanceof FirestoreRestError && RETRIED[method].has(error.status);
      const pause = delay * (0.5 + Math.random() / 2);
      if (!retried || Date.now() + pause + LEAST_ATTEMPT_MS > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

interface BatchGetPart {
  found?: { name: string; fields?: RestFields };
  missing?: string;
}

/** The data of documents by path, in the order asked (undefined where absent), read strongly as the client reads. */
export async function batchGetDocuments(paths: readonly string[]): Promise<(DocumentData | undefined)[]> {
  if (!paths.length) return [];
  // The database's name once per request (the project id may be read from FIREBASE_CONFIG's JSON).
  const database = databaseName();
  const names = paths.map((path) => documentName(path, database));
  const parts = (await send(database, "batchGet", JSON.stringify({ documents: names }))) as BatchGetPart[];
  if (!Array.isArray(parts)) throw new FirestoreRestError(GRPC_CODES.UNKNOWN, "UNKNOWN", "a batchGet answer that is not a list");
  // The answer's order is not the request's.
  const found = new Map<string, RestFields>();
  for (const part of parts) if (part.found) found.set(part.found.name, part.found.fields ?? {});
  return names.map((name) => {
    const fields = found.get(name);
    return fields && decodeFields(fields);
  });
}

export interface RestWrite {
  /** The document's path under the database's documents. */
  path: string;
  /** The whole document (the write replaces it, as a set does). */
  data: Record<string, unknown>;
  /** Fields set to the commit's time on Firestore's side (FieldValue.serverTimestamp()). */
  serverTimes?: readonly string[];
}

const PLAIN_FIELD = /^[A-Za-z_][A-Za-z_0-9]*$/;

/**
 * Writes the documents in one atomic commit, each as a set (no precondition): a commit re-sent after an
 * attempt that landed but whose answer was lost writes the same documents again instead of failing.
 */
export async function commitWrites(writes: readonly RestWrite[]): Promise<void> {
  if (!writes.length) return;
  const database = databaseName();
  const body = {
    writes: writes.map((write) => ({
      update: { name: documentName(write.path, database), fields: encodeFields(write.data) },
      ...(write.serverTimes?.length && {
        updateTransforms: write.serverTimes.map((field) => {
          if (!PLAIN_FIELD.test(field)) throw new TypeError(`Not a plain field name: ${field}`);
          return { fieldPath: field, setToServerValue: "REQUEST_TIME" };
        }),
      }),
    })),
  };
  await send(database, "commit", JSON.stringify(body));
}
