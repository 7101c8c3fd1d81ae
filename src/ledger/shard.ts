import { DurableObject } from "cloudflare:workers";
import { emptySums, type LedgerSums } from "./report";
import { outcomeMismatch, realizedCacheHitRate, realizedNet, type LedgerDecision, type OutcomeReport } from "./savings";
import { INSERT_DECISION, MIGRATIONS, SELECT_DECISION, type SumsFilter } from "./sql";
import { readLocations, readSums, readToolSessions } from "./reads";
import { LEARNING_SUMS, TOOL_NETS, toolModelSumsOf, toolNetOf, type ToolModelSums, type ToolNetRow } from "./learning-sums";
import { canonicalOutcome, decisionOf } from "./rows";
import type { ItemResult, PricedSession, ToolSessionRow } from "./types";

/** How often the retention alarm runs while the shard holds anything. */
export const RETENTION_SWEEP_MS = 3_600_000;
const DAY_MS = 86_400_000;
const UNKNOWN = "no decision of this tenant has this id";
const OTHER_TENANT = "this ledger shard belongs to another tenant";


/**
 * One shard of one tenant's outcomes ledger: a Durable Object with SQLite
 * storage, named `<tenant>/<shard>` (see ./client.ts). It keeps decisions
 * with the row that priced them, the outcomes agents report on them and the
 * bills of finished sessions, answers the sums of the savings report, and
 * purges everything older than the retention with an alarm.
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

  // Whether the tables exist. A shard nothing was written to has none, and a
  // read leaves it so: no read creates an object (ledger-v2.md §5).
  private schemaReady: boolean;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    const version = this.schemaVersion();
    this.schemaReady = version > 0;
    if (this.schemaReady && version < MIGRATIONS.length) this.migrate(version);
  }

  private migrate(from: number): void {
    this.ctx.storage.transactionSync(() => {
      for (const step of MIGRATIONS.slice(from)) this.sql.exec(step);
      this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", String(MIGRATIONS.length));
    });
  }

  /** Creates the tables on the first write. */
  private ensureSchema(): void {
    if (this.schemaReady) return;
    this.migrate(0);
    this.schemaReady = true;
  }

  /** The schema version this shard's tables are at: 0 for a new shard; 1 for one from before versions were kept. */
  private schemaVersion(): number {
    const tables = new Set(this.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray().map((row) => String(row.name)));
    if (!tables.has("meta")) return 0;
    const held = this.sql.exec("SELECT value FROM meta WHERE key = 'schema_version'").toArray()[0];
    return held === undefined ? 1 : Number(held.value);
  }

  /**
   * Stores decisions (a repeated id is ignored) and keeps the retention
   * alarm set. Answers how many it stored, or why it refused them all.
   */
  async record(tenant: string, decisions: LedgerDecision[], retentionDays: number): Promise<{ recorded: number } | { refused: string }> {
    if (this.claim(tenant) === "other") return { refused: OTHER_TENANT };
    let recorded = 0;
    this.ctx.storage.transactionSync(() => {
      this.keepRetention(retentionDays);
      for (const d of decisions) {
        const i = d.inputs;
        const written = this.sql.exec(
          INSERT_DECISION,
          d.decision_id, d.at, d.session_id, d.tool_name, d.model_name, d.priced_as, d.pricing_mode, d.reason_code,
          d.fire ? 1 : 0, d.would_fire ? 1 : 0, d.holdout ? 1 : 0, d.predicted_net_usd,
          i.output_tokens, i.horizon, i.recall_probability, i.cache_hit_rate, i.context_tokens,
          i.stub_tokens, i.recall_input_tokens, i.recall_output_tokens,
          d.row === null ? null : this.rowId(JSON.stringify(d.row)),
          i.offload_at ?? null, i.suffix_tokens ?? null, i.cache_ttl ?? null,
          d.plan === undefined ? null : JSON.stringify(d.plan),
        ).rowsWritten;
        if (written > 0) recorded++;
      }
    });
    await this.ensureAlarm();
    return { recorded };
  }

  /**
   * Stores outcomes, one result per item in order: accepted (again, for the
   * same report repeated), unknown_decision, conflict or invalid.
   */
  async reportOutcomes(tenant: string, at: number, items: OutcomeReport[]): Promise<ItemResult[]> {
    // Another tenant's shard, or one nothing was written to, holds none of the caller's decisions.
    if (this.claim(tenant, false) !== "own") return items.map(() => ({ status: "unknown_decision", message: UNKNOWN }));
    return this.ctx.storage.transactionSync(() => items.map((item) => this.reportOutcome(at, item)));
  }

  /** Stores session bills, one result per item: accepted (again, when repeated), conflict. */
  async reportSessions(tenant: string, at: number, items: PricedSession[], retentionDays: number): Promise<ItemResult[]> {
    if (this.claim(tenant) === "other") return items.map(() => ({ status: "invalid", message: OTHER_TENANT }));
    const results = this.ctx.storage.transactionSync(() => {
      this.keepRetention(retentionDays);
      return items.map((item) => this.reportSession(at, item));
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

  /** This shard's sums for the savings report. */
  async sums(tenant: string, filter: SumsFilter, bucketMs: number): Promise<LedgerSums> {
    return this.claim(tenant, false) === "own" ? readSums(this.sql, filter, bucketMs) : emptySums();
  }

  /** This shard's learning sums per (tool, model) over a window of decision times (adaptive-gate.md §1). */
  async learningSums(tenant: string, from: number, to: number): Promise<ToolModelSums[]> {
    if (this.claim(tenant, false) !== "own") return [];
    return this.sql.exec(LEARNING_SUMS, from, to).toArray().map(toolModelSumsOf);
  }

  /** Per (tool, session), the summed realized net of fired decisions with an outcome: the breaker's rule without a holdout. */
  async toolNets(tenant: string, from: number, to: number): Promise<ToolNetRow[]> {
    if (this.claim(tenant, false) !== "own") return [];
    return this.sql.exec(TOOL_NETS, from, to).toArray().map(toolNetOf);
  }

  /**
   * The (session, tool) pairs of the per-tool verdicts: one row per session
   * with a bill in the window and tool with a decision in that session,
   * with the tool's arm and the session's priced cost.
   */
  async toolSessions(tenant: string, filter: SumsFilter): Promise<ToolSessionRow[]> {
    return this.claim(tenant, false) === "own" ? readToolSessions(this.sql, filter) : [];
  }

  /** What the shard holds and the bytes its database takes: for sizing (docs/ledger.md). */
  async storage(): Promise<{ decisions: number; outcomes: number; sessions: number; bytes: number }> {
    if (!this.schemaReady) return { decisions: 0, outcomes: 0, sessions: 0, bytes: 0 };
    const count = (table: string) => Number(this.sql.exec(`SELECT COUNT(*) AS n FROM ${table}`).one().n);
    return { decisions: count("decisions"), outcomes: count("outcomes"), sessions: count("sessions"), bytes: this.sql.databaseSize };
  }

  /** Purges what is older than the retention, then comes back in an hour while anything is left. */
  override async alarm(): Promise<void> {
    if (!this.schemaReady) return;
    const days = Number(this.meta("retention_days") ?? 30);
    const cutoff = Date.now() - days * DAY_MS;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM outcomes WHERE decision_id IN (SELECT id FROM decisions WHERE at < ?)", cutoff);
      this.sql.exec("DELETE FROM decisions WHERE at < ?", cutoff);
      this.sql.exec("DELETE FROM sessions WHERE at < ?", cutoff);
      this.sql.exec("DELETE FROM price_rows WHERE id NOT IN (SELECT row_id FROM decisions WHERE row_id IS NOT NULL)");
    });
    this.rowIds.clear();
    this.alarmSet = false;
    const left = this.sql.exec("SELECT (SELECT COUNT(*) FROM decisions) + (SELECT COUNT(*) FROM sessions) AS n").one();
    if (Number(left.n) > 0) await this.ensureAlarm();
  }

  private reportOutcome(at: number, item: OutcomeReport): ItemResult {
    const report = canonicalOutcome(item);
    const held = this.sql.exec("SELECT report FROM outcomes WHERE decision_id = ?", item.decision_id).toArray()[0];
    if (held !== undefined) {
      return held.report === report
        ? { status: "accepted", repeated: true }
        : { status: "conflict", message: "an outcome with different content was already reported for this decision" };
    }
    const found = this.sql.exec(SELECT_DECISION, item.decision_id).toArray()[0];
    if (found === undefined) return { status: "unknown_decision", message: UNKNOWN };
    const decision = decisionOf(found);
    const mismatch = outcomeMismatch(decision, item);
    if (mismatch !== null) return { status: "invalid", issues: [mismatch], message: `${mismatch.path} ${mismatch.message}` };
    this.sql.exec(
      "INSERT INTO outcomes (decision_id, at, report, turns_after, recalled, q_hat, realized_net) VALUES (?, ?, ?, ?, ?, ?, ?)",
      item.decision_id, at, report, item.turns_after, item.recalled ? 1 : 0, realizedCacheHitRate(item), realizedNet(decision, item),
    );
    return { status: "accepted", repeated: false };
  }

  private reportSession(at: number, item: PricedSession): ItemResult {
    const held = this.sql.exec("SELECT report FROM sessions WHERE session_id = ?", item.session_id).toArray()[0];
    if (held !== undefined) {
      return held.report === item.report
        ? { status: "accepted", repeated: true }
        : { status: "conflict", message: "a session with this id was already reported with different content" };
    }
    // A session has no arm of its own: each (session, tool) pair has, on its decisions. The column stays 0.
    this.sql.exec(
      "INSERT INTO sessions (session_id, at, report, model_name, priced_as, cost, holdout) VALUES (?, ?, ?, ?, ?, ?, 0)",
      item.session_id, at, item.report, item.model_name, item.priced_as, item.cost_usd,
    );
    return { status: "accepted", repeated: false };
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

  /** Stores the retention the latest write brought, when it differs from the one held. */
  private keepRetention(days: number): void {
    if (this.retentionDays === undefined) this.retentionDays = Number(this.meta("retention_days") ?? NaN);
    if (this.retentionDays === days) return;
    this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('retention_days', ?)", String(days));
    this.retentionDays = days;
  }

  private meta(key: string): string | null {
    const row = this.sql.exec("SELECT value FROM meta WHERE key = ?", key).toArray()[0];
    return row === undefined ? null : String(row.value);
  }

  private rowId(json: string): number {
    let id = this.rowIds.get(json);
    if (id === undefined) {
      this.sql.exec("INSERT OR IGNORE INTO price_rows (json) VALUES (?)", json);
      id = Number(this.sql.exec("SELECT id FROM price_rows WHERE json = ?", json).one().id);
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
