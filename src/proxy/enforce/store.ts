/**
 * @module proxy/enforce/store
 *
 * One SQLite-backed Durable Object per enforced session
 * (`<tenant>/<session>`, bound as PROXY_ENFORCE; docs/design/proxy.md §8.3
 * says why here): what the session's requests must keep sending (each tool
 * output's stub, or that it was kept), the originals the stubs stand for,
 * and the recall exchanges the proxy resolved, in order. An alarm deletes
 * it all once the session has been idle for {@link ENFORCE_TTL_MS}; before
 * that, once it has been idle for {@link ENFORCE_REPORT_IDLE_MS}, it reports
 * each enforced decision's outcome to the ledger (turns after, recalled: the
 * proxy resolved every recall, so it counts them exactly).
 */
import { DurableObject } from "cloudflare:workers";

/** How long an idle session's stubs and originals are kept: a day, far past the 1-hour cache's life. */
export const ENFORCE_TTL_MS = 24 * 60 * 60 * 1000;
/** The idle time after which the session's enforced decisions are reported: past the 1-hour cache's life, as observed sessions. */
export const ENFORCE_REPORT_IDLE_MS = 65 * 60 * 1000;
/** Most characters of originals one session keeps; an output past it is kept in the request, never stubbed. */
export const MAX_ORIGINAL_CHARS = 8 * 1024 * 1024;
// SQLite in a Durable Object holds at most 2 MB per value: an original is kept in pieces (≤ 3 bytes a character).
const PIECE_CHARS = 512 * 1024;

/** Where a session stands: enforced, or observed only (for good), and why. */
export interface EnforceStatus {
  status: "enforced" | "off";
  reason: string;
}

/** One tool output's fate in the session: its stub (null: kept), as sent the first time. */
export interface OutputFate {
  call_id: string;
  stub: string | null;
  /** The original's length when it was stubbed: a client that since cleared it sends another text. */
  chars?: number;
}

/** A fresh output's fate and, when stubbed, its original and the gate's decision. */
export interface NewFate extends OutputFate {
  original: string | null;
  decision_id: string | null;
}

/** A recall the proxy resolved: the model's answer calling the recall tool, and the outputs it asked for. */
export interface RecallExchange {
  /** How many of the client's messages came before it: it goes back in at that index. */
  after: number;
  /** The answer's message (role and content) as it was sent back to the provider, JSON. */
  assistant: string;
  /** Per recall call, its id and the output it asked for (null: an id the session never stubbed). */
  results: { tool_use_id: string; output: string | null }[];
}

/** What a request needs to know of its session. */
export interface SessionView extends EnforceStatus {
  /** The fate of each output the request names that the session has seen before. */
  known: OutputFate[];
  recalls: RecallExchange[];
  /** Whether the session has stubbed anything yet. */
  stubbed: boolean;
}

interface FateRow extends Record<string, SqlStorageValue> {
  call_id: string;
  stub: string | null;
  chars: number;
}

/**
 * A session's enforcement record. `open` answers what a request must keep
 * sending; `commit` adds the fates of its fresh outputs (refusing originals
 * past the cap, which are then kept); `recall` adds a resolved recall;
 * `original` reads one back.
 *
 * @example
 * const store = env.PROXY_ENFORCE.get(env.PROXY_ENFORCE.idFromName(`${tenant}/${session}`));
 * const view = await store.open({ start: true, call_ids: ["toolu_1"], reason: null });
 */
export class EnforceSession extends DurableObject<Env> {
  private ready = false;

  private sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    if (!this.ready) {
      sql.exec(`CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)`);
      sql.exec(
        `CREATE TABLE IF NOT EXISTS fates (call_id TEXT PRIMARY KEY, stub TEXT, chars INTEGER NOT NULL, decision_id TEXT, turns_after INTEGER NOT NULL DEFAULT 0, recalled INTEGER NOT NULL DEFAULT 0)`,
      );
      sql.exec(
        `CREATE TABLE IF NOT EXISTS originals (call_id TEXT NOT NULL, piece INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (call_id, piece))`,
      );
      sql.exec(`CREATE TABLE IF NOT EXISTS recalls (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)`);
      this.ready = true;
    }
    return sql;
  }

  private meta(key: string): string | null {
    const row = this.sql().exec<{ v: string }>(`SELECT v FROM meta WHERE k = ?`, key).toArray()[0];
    return row === undefined ? null : row.v;
  }

  private setMeta(key: string, value: string): void {
    this.sql().exec(`INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, key, value);
  }

  /**
   * The session as a request finds it. A session seen for the first time is
   * enforced only from its start (`start`: no earlier answer in the request)
   * and when nothing says otherwise (`reason`): one already under way, or one
   * that uses the provider's own context management, is observed for good.
   */
  async open(request: {
    tenant: string;
    start: boolean;
    call_ids: string[];
    reason: string | null;
  }): Promise<SessionView> {
    let status = this.meta("status") as EnforceStatus["status"] | null;
    let reason = this.meta("reason") ?? "";
    if (status === null) {
      status = request.start && request.reason === null ? "enforced" : "off";
      reason =
        request.reason ?? (request.start ? "enforced from the session's first request" : "already under way when seen");
      this.setMeta("status", status);
      this.setMeta("reason", reason);
      this.setMeta("tenant", request.tenant);
    }
    const reported = this.meta("reported") !== null;
    await this.ctx.storage.setAlarm(Date.now() + (reported ? ENFORCE_TTL_MS : ENFORCE_REPORT_IDLE_MS));
    if (status === "off") return { status, reason, known: [], recalls: [], stubbed: false };
    const sql = this.sql();
    const known: OutputFate[] = [];
    for (const id of new Set(request.call_ids)) {
      const row = sql.exec<FateRow>(`SELECT call_id, stub, chars FROM fates WHERE call_id = ?`, id).toArray()[0];
      if (row === undefined) continue;
      known.push({ call_id: row.call_id, stub: row.stub, chars: row.chars });
      // One more request carried the output (as its stub or whole): the decision's realized horizon.
      sql.exec(`UPDATE fates SET turns_after = turns_after + 1 WHERE call_id = ?`, id);
    }
    const recalls = sql
      .exec<{ body: string }>(`SELECT body FROM recalls ORDER BY seq`)
      .toArray()
      .map((row) => JSON.parse(row.body) as RecallExchange);
    const stubbed = sql.exec(`SELECT 1 FROM fates WHERE stub IS NOT NULL LIMIT 1`).toArray().length > 0;
    return { status, reason, known, recalls, stubbed };
  }

  /**
   * Records fresh outputs' fates, first come first kept: an output already
   * recorded keeps its fate (two requests racing agree on the first), and an
   * original past the session's cap is kept instead of stubbed. Answers the
   * fates as recorded.
   */
  async commit(fates: NewFate[]): Promise<OutputFate[]> {
    const sql = this.sql();
    let used = Number(this.meta("original_chars") ?? "0");
    const out: OutputFate[] = [];
    this.ctx.storage.transactionSync(() => {
      for (const fate of fates) {
        const prior = sql
          .exec<FateRow>(`SELECT call_id, stub, chars FROM fates WHERE call_id = ?`, fate.call_id)
          .toArray()[0];
        if (prior !== undefined) {
          out.push({ call_id: prior.call_id, stub: prior.stub });
          continue;
        }
        const original = fate.stub === null ? null : fate.original;
        const fits = original !== null && used + original.length <= MAX_ORIGINAL_CHARS;
        const stub = fits ? fate.stub : null;
        sql.exec(
          `INSERT INTO fates (call_id, stub, chars, decision_id) VALUES (?, ?, ?, ?)`,
          fate.call_id,
          stub,
          original?.length ?? 0,
          fate.decision_id,
        );
        if (fits) {
          for (let at = 0, piece = 0; at < original.length; at += PIECE_CHARS, piece++) {
            sql.exec(
              `INSERT INTO originals (call_id, piece, text) VALUES (?, ?, ?)`,
              fate.call_id,
              piece,
              original.slice(at, at + PIECE_CHARS),
            );
          }
          used += original.length;
        }
        out.push({ call_id: fate.call_id, stub });
      }
      this.setMeta("original_chars", String(used));
    });
    return out;
  }

  /** Adds a recall the proxy resolved, after those before it. */
  async recall(exchange: RecallExchange): Promise<void> {
    const sql = this.sql();
    sql.exec(`INSERT INTO recalls (body) VALUES (?)`, JSON.stringify(exchange));
    for (const result of exchange.results)
      if (result.output !== null) sql.exec(`UPDATE fates SET recalled = 1 WHERE call_id = ?`, result.output);
  }

  /** The original an output's stub stands for, or null when it is gone (or never was). */
  async original(callId: string): Promise<string | null> {
    const pieces = this.sql()
      .exec<{ text: string }>(`SELECT text FROM originals WHERE call_id = ? ORDER BY piece`, callId)
      .toArray();
    return pieces.length === 0 ? null : pieces.map((piece) => piece.text).join("");
  }

  /** Stops enforcing the session for good (a request went upstream unchanged). */
  async stop(reason: string): Promise<void> {
    this.setMeta("status", "off");
    this.setMeta("reason", reason);
  }

  /** The session's enforced decisions' outcomes, as the ledger takes them: turns after, recalled. */
  async outcomes(): Promise<{ decision_id: string; turns_after: number; recalled: boolean }[]> {
    return this.sql()
      .exec<{ decision_id: string; turns_after: number; recalled: number }>(
        `SELECT decision_id, turns_after, recalled FROM fates WHERE decision_id IS NOT NULL ORDER BY rowid`,
      )
      .toArray()
      .map((row) => ({ decision_id: row.decision_id, turns_after: row.turns_after, recalled: row.recalled === 1 }));
  }

  /**
   * Idle past {@link ENFORCE_REPORT_IDLE_MS}: the decisions' outcomes go to
   * the ledger (a ledger that cannot be reached throws, and the runtime
   * retries the alarm), and the record stays for recalls until its time to
   * live. Idle past that: every stub, original and recall goes.
   */
  override async alarm(): Promise<void> {
    const tenant = this.meta("tenant");
    if (this.meta("reported") === null && tenant !== null && this.meta("status") === "enforced") {
      const outcomes = await this.outcomes();
      if (outcomes.length > 0) {
        const { reportEnforced } = await import("./report");
        await reportEnforced(this.env, tenant, outcomes);
      }
      this.setMeta("reported", "1");
      await this.ctx.storage.setAlarm(Date.now() + ENFORCE_TTL_MS - ENFORCE_REPORT_IDLE_MS);
      return;
    }
    await this.ctx.storage.deleteAll();
    this.ready = false;
  }
}
