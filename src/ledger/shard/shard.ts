import { DurableObject } from "cloudflare:workers";
import type { ItemResult, LedgerDecision, OutcomeReport, PricedSession } from "../model";
import type { ToolPairList } from "../stats";
import { emptySums, type LedgerSums } from "../stats";
import { readBandSums, withBands } from "./band-sums";
import type { ToolModelSums, ToolNetRow } from "./learning-sums";
import { MIGRATIONS, migrate, schemaVersion } from "./migrations";
import { takePending } from "./pending";
import { readReporting, type ToolReporting } from "./reporting";
import { readLearningSums, readSums, readToolNets } from "./rollup-reads";
import { readLocations, readToolSessions } from "./session-reads";
import { purge, storeDecisions, storeOutcomes, storeSessions } from "./shard-writes";
import type { SumsFilter } from "./sql";
import { readToolPairs } from "./tool-chunks";

/** The tables `storage()` counts. */
const SIZED = [
  "decisions",
  "outcomes",
  "sessions",
  "rollups",
  "session_tools",
  "session_clusters",
  "cluster_spans",
  "bill_hours",
  "tool_chunks",
  "pending_outcomes",
] as const;

/** How often the retention alarm runs while the shard holds anything. */
export const RETENTION_SWEEP_MS = 3_600_000;
const UNKNOWN = "no decision of this tenant has this id";
const OTHER_TENANT = "this ledger shard belongs to another tenant";

/**
 * One shard of one tenant's outcomes ledger: a Durable Object with SQLite
 * storage, named `<tenant>/<shard>` (see ../transport/client.ts). It keeps decisions
 * with the row that priced them and the outcomes agents report on them for
 * the raw window, hourly rollups and per-(session, tool) summaries of them
 * and the bills of finished sessions for the retention; answers the sums of
 * the savings report and the learner from the rollups, and purges both
 * horizons with an alarm.
 *
 * @example
 * const shard = env.LEDGER.get(env.LEDGER.idFromName("acme/3"));
 * await shard.record("acme", decisions, 30);
 */
export class LedgerShard extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  // Rows repeat across thousands of decisions: each distinct row is stored once.
  private readonly rowIds = new Map<string, number>();
  private alarmSet = false;
  // meta's values, read once: a write per call would double every record's cost.
  private owner: string | null | undefined;
  private retentionDays: number | undefined;
  private rawDays: number | undefined;
  // The hour raw rows are whole from (meta `raw_from`): older partial hours are read whole from rollups.
  private rawFrom: number | undefined;

  // Whether the tables exist. A shard nothing was written to has none, and a
  // read leaves it so: no read creates an object (docs/design/ledger.md §7).
  private schemaReady: boolean;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    const version = schemaVersion(this.sql);
    this.schemaReady = version > 0;
    if (this.schemaReady && version < MIGRATIONS.length) migrate(ctx.storage, version);
  }

  /** Creates the tables on the first write. */
  private ensureSchema(): void {
    if (this.schemaReady) return;
    migrate(this.ctx.storage, 0);
    this.schemaReady = true;
  }

  /**
   * Stores decisions (a repeated id is ignored) with their rollups and keeps
   * the retention alarm set. `rawDays` (ledger_raw_days) is kept when given;
   * a caller that leaves it out leaves the one held. Answers how many it
   * stored, or why it refused them all.
   */
  async record(
    tenant: string,
    decisions: LedgerDecision[],
    retentionDays: number,
    rawDays?: number,
  ): Promise<{ recorded: number } | { refused: string }> {
    if (this.claim(tenant) === "other") return { refused: OTHER_TENANT };
    const recorded = this.ctx.storage.transactionSync(() => {
      this.keepRetention(retentionDays, rawDays);
      const stored = storeDecisions(this.sql, decisions, (json) => this.rowId(json));
      // Outcomes that came first (./pending.ts) are applied now, each once, as reported then.
      for (const { at, item } of takePending(
        this.sql,
        decisions.map((d) => d.decision_id),
      ))
        storeOutcomes(this.sql, at, [item]);
      return stored;
    });
    await this.ensureAlarm();
    return { recorded };
  }

  /**
   * Stores outcomes, one result per item in order: accepted (again, for the
   * same report repeated), unknown_decision, conflict or invalid.
   */
  async reportOutcomes(
    tenant: string,
    at: number,
    items: OutcomeReport[],
    rawDays?: number,
    pendable: string[] = [],
  ): Promise<ItemResult[]> {
    // Another tenant's shard, or one nothing was written to, holds none of the caller's decisions;
    // an authentic id (`pendable`: its tag names this tenant) may claim a new shard its decision is queued for.
    const claimed = this.claim(tenant, pendable.length > 0);
    if (claimed === "other" || (claimed === "new" && pendable.length === 0))
      return items.map(() => ({ status: "unknown_decision", message: UNKNOWN }));
    const results = this.ctx.storage.transactionSync(() => {
      if (rawDays !== undefined) this.keepRetention(undefined, rawDays);
      return storeOutcomes(this.sql, at, items, new Set(pendable));
    });
    // A pending outcome expires with the raw window: the retention alarm must run.
    if (results.some((r) => r.pending === true)) await this.ensureAlarm();
    return results;
  }

  /** Stores session bills, one result per item: accepted (again, when repeated), conflict. */
  async reportSessions(
    tenant: string,
    at: number,
    items: PricedSession[],
    retentionDays: number,
    rawDays?: number,
  ): Promise<ItemResult[]> {
    if (this.claim(tenant) === "other") return items.map(() => ({ status: "invalid", message: OTHER_TENANT }));
    const results = this.ctx.storage.transactionSync(() => {
      this.keepRetention(retentionDays, rawDays);
      return storeSessions(this.sql, at, items);
    });
    await this.ensureAlarm();
    return results;
  }

  /**
   * Where each session is here: 2 when its bill is, 1 when only decisions
   * of it are, 0 when nothing of it is. The sessions route sends a bill to
   * the shard that already holds it, whatever ledger_shards did since.
   */
  async locateSessions(tenant: string, sessionIds: string[]): Promise<number[]> {
    return this.claim(tenant, false) === "own" ? readLocations(this.sql, sessionIds) : sessionIds.map(() => 0);
  }

  /** This shard's sums for the savings report: rollups for whole hours, raw rows for partial ones (./window.ts). */
  async sums(tenant: string, filter: SumsFilter, bucketMs: number): Promise<LedgerSums> {
    return this.claim(tenant, false) === "own" ? readSums(this.sql, filter, bucketMs, this.keptFrom()) : emptySums();
  }

  /** This shard's learning sums per (tool, model) over a window of decision times (docs/design/learning.md §1). */
  async learningSums(tenant: string, from: number, to: number): Promise<ToolModelSums[]> {
    if (this.claim(tenant, false) !== "own") return [];
    const rawFrom = this.keptFrom();
    return withBands(readLearningSums(this.sql, from, to, rawFrom), readBandSums(this.sql, from, to, rawFrom));
  }

  /** Per tool, what its reporting is judged on over a window of decision times, from the raw rows (./reporting.ts). */
  async reporting(tenant: string, from: number, to: number): Promise<ToolReporting[]> {
    return this.claim(tenant, false) === "own" ? readReporting(this.sql, from, to) : [];
  }

  /** Per (tool, session), the summed realized net of fired decisions with an outcome: the breaker's rule without a holdout. */
  async toolNets(tenant: string, from: number, to: number): Promise<ToolNetRow[]> {
    return this.claim(tenant, false) === "own" ? readToolNets(this.sql, from, to, this.keptFrom()) : [];
  }

  /**
   * The (session, tool) pairs of the per-tool verdicts, packed per tool in
   * report order: every session with a bill in the window and tool with a
   * decision in that session, with the tool's arm and the session's cost.
   */
  async toolPairs(tenant: string, filter: SumsFilter): Promise<ToolPairList[]> {
    return this.claim(tenant, false) === "own"
      ? readToolPairs(this.sql, filter, () => readToolSessions(this.sql, filter))
      : [];
  }

  /** What the shard holds (rows per table) and the bytes its database takes: for sizing (docs/ledger.md). */
  async storage(): Promise<Record<(typeof SIZED)[number], number> & { bytes: number }> {
    const counts = SIZED.map((table) => [
      table,
      this.schemaReady ? this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n : 0,
    ]);
    return {
      ...(Object.fromEntries(counts) as Record<(typeof SIZED)[number], number>),
      bytes: this.schemaReady ? this.sql.databaseSize : 0,
    };
  }

  /** Purges both horizons (./shard-writes.ts, purge), then comes back in an hour while anything is left. */
  override async alarm(): Promise<void> {
    if (!this.schemaReady) return;
    const days = Number(this.meta("retention_days") ?? 30);
    const rawDays = Number(this.meta("raw_days") ?? days);
    this.rawFrom = this.ctx.storage.transactionSync(() => purge(this.sql, Date.now(), days, rawDays));
    this.rowIds.clear();
    this.alarmSet = false;
    const left = this.sql
      .exec<{ n: number }>(
        "SELECT (SELECT COUNT(*) FROM decisions) + (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM rollups) + (SELECT COUNT(*) FROM pending_outcomes) AS n",
      )
      .one();
    if (left.n > 0) await this.ensureAlarm();
  }

  /** The hour raw rows are whole from: 0 until the first purge. */
  private keptFrom(): number {
    if (this.rawFrom === undefined) this.rawFrom = Number(this.meta("raw_from") ?? 0);
    return this.rawFrom;
  }

  /**
   * Binds this shard to its tenant on the first write and refuses any other
   * tenant after that: a second guard behind the name the client derives.
   * "new" when nothing was written here yet.
   */
  private claim(tenant: string, write = true): "own" | "new" | "other" {
    if (!this.schemaReady) {
      if (!write) return "new";
      this.ensureSchema();
    }
    if (this.owner === undefined) this.owner = this.meta("tenant");
    if (this.owner === null) {
      if (write) {
        this.sql.exec("INSERT INTO meta (key, value) VALUES ('tenant', ?)", tenant);
        this.owner = tenant;
      }
      return "new";
    }
    return this.owner === tenant ? "own" : "other";
  }

  /** Stores the retention and raw window the latest write brought, when they differ from the ones held. */
  private keepRetention(days: number | undefined, rawDays?: number): void {
    if (days !== undefined) {
      if (this.retentionDays === undefined) this.retentionDays = Number(this.meta("retention_days") ?? NaN);
      if (this.retentionDays !== days) {
        this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('retention_days', ?)", String(days));
        this.retentionDays = days;
      }
    }
    if (rawDays === undefined) return;
    if (this.rawDays === undefined) this.rawDays = Number(this.meta("raw_days") ?? NaN);
    if (this.rawDays === rawDays) return;
    this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('raw_days', ?)", String(rawDays));
    this.rawDays = rawDays;
  }

  private meta(key: string): string | null {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0];
    return row === undefined ? null : row.value;
  }

  private rowId(json: string): number {
    let id = this.rowIds.get(json);
    if (id === undefined) {
      this.sql.exec("INSERT OR IGNORE INTO price_rows (json) VALUES (?)", json);
      id = this.sql.exec<{ id: number }>("SELECT id FROM price_rows WHERE json = ?", json).one().id;
      this.rowIds.set(json, id);
    }
    return id;
  }

  private async ensureAlarm(): Promise<void> {
    if (this.alarmSet) return;
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + RETENTION_SWEEP_MS);
    this.alarmSet = true;
  }
}
