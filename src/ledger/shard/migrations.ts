/**
 * The ledger shard's SQLite schema: its migrations, in order, and how a shard
 * runs them. docs/storage/ledger.md describes the tables.
 *
 * @module
 */

import { BAND_MIGRATION } from "./band-sums";
import { BILL_MIGRATION } from "./bill-hours";
import { CLUSTER_MIGRATION } from "./cluster-spans";
import { PENDING_MIGRATION } from "./pending";
import {
  GATE_NET_BACKFILL,
  GATE_NET_COLUMNS,
  OBSERVED_ROLLUP_BACKFILL,
  OBSERVED_ROLLUP_COLUMNS,
  ROLLUP_MIGRATION,
} from "./rollup-sql";
import { backfillChunks, CHUNK_MIGRATION } from "./tool-chunks";

/**
 * The schema's versions, in order: a shard runs those past the version in
 * its `meta` table when it starts, so a shard written by an older worker
 * gains the new columns instead of failing on them. A step is SQL, or code
 * where SQL cannot say it (adding a column only where it is missing).
 */
export const MIGRATIONS: readonly (string | ((sql: SqlStorage) => void))[] = [
  // 1: the tables and indexes.
  `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS price_rows (id INTEGER PRIMARY KEY, json TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS decisions (
  id TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  session_id TEXT,
  tool_name TEXT,
  model_name TEXT NOT NULL,
  priced_as TEXT,
  pricing_mode TEXT NOT NULL,
  reason_code TEXT NOT NULL,
  fire INTEGER NOT NULL,
  would_fire INTEGER NOT NULL,
  holdout INTEGER NOT NULL,
  predicted_net REAL NOT NULL,
  output_tokens REAL NOT NULL,
  horizon REAL NOT NULL,
  recall_probability REAL NOT NULL,
  cache_hit_rate REAL NOT NULL,
  context_tokens REAL,
  stub_tokens REAL NOT NULL,
  recall_input_tokens REAL NOT NULL,
  recall_output_tokens REAL NOT NULL,
  row_id INTEGER
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS decisions_at ON decisions (at);
CREATE INDEX IF NOT EXISTS decisions_session ON decisions (session_id, tool_name) WHERE session_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS outcomes (
  decision_id TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  report TEXT NOT NULL,
  turns_after INTEGER NOT NULL,
  recalled INTEGER NOT NULL,
  q_hat REAL,
  realized_net REAL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  report TEXT NOT NULL,
  model_name TEXT NOT NULL,
  priced_as TEXT,
  cost REAL NOT NULL,
  holdout INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_at ON sessions (at);
`,
  // 2: where the output was stubbed (econ v2), so a realized net prices the decision's own placement and cache write.
  `ALTER TABLE decisions ADD COLUMN offload_at TEXT;
ALTER TABLE decisions ADD COLUMN suffix_tokens REAL;
ALTER TABLE decisions ADD COLUMN cache_ttl TEXT;`,
  // 3: a clearing plan's segments and stubbed ids (JSON), so its outcome is priced by the plan's own formula.
  `ALTER TABLE decisions ADD COLUMN plan TEXT;`,
  // 4: hourly rollups and per-(session, tool) summaries, backfilled from the rows held (./rollup-sql.ts).
  // The backfill sums today's columns, so the outcome's column they read (step 12's) is added first.
  (sql) => {
    addColumn(sql, "outcomes", "recalled_high INTEGER");
    sql.exec(ROLLUP_MIGRATION);
  },
  // 5: per-session cluster sums and their per-span totals (./cluster-spans.ts), the bills' hourly sums
  // (./bill-hours.ts), the verdicts' pairs packed per tool and hour (./tool-chunks.ts): backfilled from
  // the summaries and bills held (the chunks by the shard after the step: packing takes code).
  CLUSTER_MIGRATION + BILL_MIGRATION + CHUNK_MIGRATION,
  // 6: p per (tool, model) and size band, hourly (./band-sums.ts), backfilled from the raw rows held.
  BAND_MIGRATION,
  // 7: outcomes of authentic ids whose decision has not arrived yet (./pending.ts).
  PENDING_MIGRATION,
  // 8: a session's covariate for the breaker's CUPED adjustment; the shard packs every chunk again after
  // the step, in the 25-byte layout that carries it (./tool-chunks.ts).
  (sql) => addColumn(sql, "sessions", "covariate REAL"),
  // 9: a session's diagnosed cache misses, in input tokens: after one of the gate's own rewrites, and
  // the rest (null when the report had none).
  (sql) => {
    addColumn(sql, "sessions", "missed_after_rewrite INTEGER");
    addColumn(sql, "sessions", "missed_other INTEGER");
  },
  // 10: each outcome's net as the gate priced its decision, and its per-(session, tool) sums with what
  // priced them (./rollup-sql.ts GATE_NET_SUMS): the breaker's evidence without a holdout.
  (sql) => {
    const fresh = !sql
      .exec<{ name: string }>("SELECT name FROM pragma_table_info('session_tools')")
      .toArray()
      .some((c) => c.name === "gnet_s");
    for (const [table, column] of GATE_NET_COLUMNS) addColumn(sql, table, column);
    if (fresh) sql.exec(GATE_NET_BACKFILL);
  },
  // 11: where a decision priced the recall hop's original (docs/design/economics.md §4.2): "in_place",
  // or NULL for appended, the default, so every older row reads and prices as it did.
  (sql) => addColumn(sql, "decisions", "recall_placement TEXT"),
  // 12: the high end of an outcome's recall evidence (NULL when not sent: the reads take `recalled`), and
  // the rollups' observed recall range (./rollup-sql.ts obs_*), backfilled from what the rollups held:
  // an older outcome sent one flag, so both ends are its `recalled`.
  (sql) => {
    addColumn(sql, "outcomes", "recalled_high INTEGER");
    const fresh = !sql
      .exec<{ name: string }>("SELECT name FROM pragma_table_info('rollups')")
      .toArray()
      .some((c) => c.name === "obs_fwo");
    for (const column of OBSERVED_ROLLUP_COLUMNS) addColumn(sql, "rollups", `${column} REAL NOT NULL DEFAULT 0`);
    if (fresh) sql.exec(OBSERVED_ROLLUP_BACKFILL);
  },
];

/**
 * Adds a column unless the table has it: SQLite has no ADD COLUMN IF NOT EXISTS, and a step
 * that ran once must not fail a shard whose version was set back (a restore, a test).
 *
 * @example
 * addColumn(sql, "sessions", "covariate REAL")
 */
export function addColumn(sql: SqlStorage, table: string, column: string): void {
  const name = column.split(" ")[0];
  const columns = sql.exec<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`).toArray();
  if (!columns.some((c) => c.name === name)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column}`);
}

/**
 * Runs the migrations past `from` in one transaction and records the version
 * reached. Schema 5's packed pairs are filled by code from the bills and
 * summaries its SQL left; schema 8 packs them again with the covariate.
 *
 * @example
 * migrate(ctx.storage, schemaVersion(ctx.storage.sql)) // an older shard, at start
 */
export function migrate(storage: DurableObjectStorage, from: number): void {
  const sql = storage.sql;
  storage.transactionSync(() => {
    for (const step of MIGRATIONS.slice(from)) typeof step === "string" ? sql.exec(step) : step(sql);
    if (from < 8) backfillChunks(sql);
    sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", String(MIGRATIONS.length));
  });
}

/**
 * The schema version a shard's tables are at: 0 for a new shard; 1 for one from before versions were kept.
 *
 * @example
 * schemaVersion(ctx.storage.sql) // 8
 */
export function schemaVersion(sql: SqlStorage): number {
  const tables = new Set(
    sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((row) => row.name),
  );
  if (!tables.has("meta")) return 0;
  const held = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'").toArray()[0];
  return held === undefined ? 1 : Number(held.value);
}
