// Runs the queries of docs/scan-stream.md on SQLite (sql.js), since there is no local BigQuery: the same
// SQL text, with the two documented changes (no dataset prefix, no OR REPLACE) and BigQuery's UNIX_MICROS
// and DIV defined as BigQuery defines them (`at` is kept as integer microseconds here).
import { readFileSync } from "node:fs";
import path from "node:path";
import initSqlJs, { type Database } from "sql.js";
import { SCAN_EVENT_FIELDS, type ScanEvent } from "../../functions/src/store/scanEvents";

const DOC = path.resolve(__dirname, "..", "..", "docs", "scan-stream.md");

/** The table's columns here: the message's fields and the metadata the tests keep. */
const COLUMNS = [...Object.keys(SCAN_EVENT_FIELDS), "message_id", "publish_time"];

/**
 * The ```sql blocks of docs/scan-stream.md, in order, adapted for SQLite: BigQuery's `* EXCEPT (a, b)`
 * (used only where the table itself is read) becomes the table's other columns.
 */
export function documentedQueries(): string[] {
  const text = readFileSync(DOC, "utf8");
  return [...text.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) =>
    m[1]
      .replaceAll("scan_stream.", "")
      .replace("CREATE OR REPLACE VIEW", "CREATE VIEW")
      .replace(/\* EXCEPT \(([^)]*)\)/g, (_, names: string) => {
        const except = names.split(",").map((n) => n.trim());
        return COLUMNS.filter((c) => !except.includes(c)).join(", ");
      }),
  );
}

/** A row as the BigQuery subscription writes it: the message's fields and the message's metadata. */
export interface StreamRow extends ScanEvent {
  message_id: string;
  /** Microseconds, like `at`. */
  publish_time: number;
}

export type QueryRow = Record<string, number | string | null>;

export async function streamDatabase(rows: StreamRow[]): Promise<{ db: Database; query: (sql: string) => QueryRow[] }> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.create_function("UNIX_MICROS", (at: number) => at);
  db.create_function("DIV", (a: number, b: number) => Math.trunc(a / b));
  db.run(`CREATE TABLE scan_events (${COLUMNS.join(", ")})`);
  const insert = db.prepare(`INSERT INTO scan_events VALUES (${COLUMNS.map(() => "?").join(", ")})`);
  for (const row of rows) insert.run(COLUMNS.map((c) => (row as unknown as Record<string, string | number | null>)[c] ?? null));
  insert.free();
  const query = (sql: string): QueryRow[] => {
    const result = db.exec(sql);
    if (!result.length) return [];
    return result[0].values.map((values) => Object.fromEntries(result[0].columns.map((c, i) => [c, values[i] as number | string | null])));
  };
  const [once, counts] = documentedQueries();
  db.run(once);
  db.run(counts);
  return { db, query };
}
