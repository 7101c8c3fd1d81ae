/**
 * An offload session's own books: the decisions it holds, the turns and
 * cached turns counted since each, the summed usage, and the outcome and
 * bill reports they make. Pure: no I/O.
 */
import type { OutcomeReport, SessionReport } from "./app-type.js";

/** A model call's usage in the provider's (Anthropic's) shape: `input_tokens` excludes cache reads and writes. */
export interface SessionUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** What `observe` takes: the summed fields, and Anthropic's split of the writes by TTL when the call reported it. */
export type ObservedUsage = Partial<SessionUsage> & {
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
  /**
   * The response's cache diagnostics, when the provider gave them (Anthropic's, asked with
   * `diagnostics: { previous_message_id }`): `cache_miss_reason` null for no divergence, else its
   * `cache_missed_input_tokens`.
   */
  diagnostics?: { cache_miss_reason?: { type?: string; cache_missed_input_tokens?: number | null } | null } | null;
};

/** Where the session stood when something was decided. */
export interface Mark {
  turnsAt: number;
  cachedAt: number;
}

/** One tool output the session asked about. */
export interface Held extends Mark {
  id: string;
  toolName: string;
  decisionId: string | undefined;
  fire: boolean;
  /** The text the history holds instead of the output; undefined: the original. */
  stub: string | undefined;
  /** The original while it is kept in full (a plan may still stub it). */
  original: string | undefined;
  recalled: boolean;
  /** Sent with the outcome for a seed-mode decision (cache-aware ones carried it). */
  contextTokens: number | undefined;
}

/** A clear_tool_uses edit the gate answered with an id, and the most the API cleared on one response under it since. */
export interface HeldClearing extends Mark {
  decisionId: string;
  clearedToolUses: number;
  clearedInputTokens: number;
}

/** A plan the gate answered, and which ids it stubbed. */
export interface HeldPlan extends Mark {
  decisionId: string;
  ids: string[];
  /** The plan's stubbed ids that were recalled, in the order they first were: the ledger prices the plan by them. */
  recalledIds?: string[];
}

const USAGE_KEYS = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const;
// A model call's usage without these is not a bill; the others may be absent (no cache used).
const REQUIRED = new Set<string>(["input_tokens", "output_tokens"]);

/**
 * The books of one session.
 *
 * @example
 * const ledger = new Ledger();
 * ledger.observe({ input_tokens: 10, output_tokens: 5 });
 * ledger.at(); // { turnsAt: 1, cachedAt: 0 }
 */
export class Ledger {
  readonly #held = new Map<string, Held>();
  readonly #plans: HeldPlan[] = [];
  readonly #clearings: HeldClearing[] = [];
  #turns = 0;
  #cached = 0;
  #context = 0;
  // The covariate the breaker regresses this session's bill on (POST /v1/sessions `covariate`): the
  // history at the first gate call times the later calls that missed the cache. Neither is changed by
  // what the gate decides, which is what keeps the breaker's adjustment unbiased.
  #firstContext: number | undefined;
  #misses = 0;
  // The provider's own word on misses (cache diagnostics), when it gave it on any call: the missed
  // input tokens on the call right after one of the gate's rewrites of the cached history (a plan's
  // stubs, a clearing), and on every other call. Only the others are independent of the gate's
  // decisions, so they are the covariate then (measured, not estimated).
  #diagnosed = false;
  #rewrote = false;
  readonly #missed = { after_gate_rewrite: 0, other: 0 };
  readonly #usage: SessionUsage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  // Of cache_creation_input_tokens, the writes reported as 1-hour ones: the bill prices them at the 1-hour rate.
  #written1h = 0;
  // The usage fields that could not be read, by call: while there is one, no bill is sent (never a silent zero).
  readonly #issues: string[] = [];

  /** The usage fields that could not be read, each named with its call. */
  get issues(): readonly string[] {
    return this.#issues;
  }

  get(id: string): Held | undefined {
    return this.#held.get(id);
  }

  add(held: Held): void {
    this.#held.set(held.id, held);
  }

  addPlan(plan: HeldPlan): void {
    this.#plans.push(plan);
    if (plan.ids.length > 0) this.#rewrote = true;
  }

  /** A /v1/context-management answer: held as a decision when it carries an id (a dry run, a fallback: none). */
  addClearing(answer: unknown, at: Mark): void {
    const id = (answer as { decision_id?: unknown; fallback?: unknown } | null)?.decision_id;
    if (typeof id === "string" && (answer as { fallback?: unknown }).fallback !== true) {
      this.#clearings.push({ ...at, decisionId: id, clearedToolUses: 0, clearedInputTokens: 0 });
      this.#rewrote = true;
    }
  }

  /**
   * What the API cleared on one response, on the latest clearing decision (none held: nothing to
   * report it on). The edit is applied again on every later request, each response reporting that
   * request's clearing, so the outcome keeps the largest one, never their sum (which would count
   * the same results once per turn).
   */
  cleared(edits: readonly { clearedToolUses?: number; clearedInputTokens?: number }[]): void {
    const last = this.#clearings.at(-1);
    if (last === undefined) return;
    let uses = 0;
    let tokens = 0;
    for (const edit of edits) {
      if (isCount(edit.clearedToolUses)) uses += edit.clearedToolUses;
      if (isCount(edit.clearedInputTokens)) tokens += edit.clearedInputTokens;
    }
    if (tokens > last.clearedInputTokens || (tokens === last.clearedInputTokens && uses > last.clearedToolUses)) {
      last.clearedToolUses = uses;
      last.clearedInputTokens = tokens;
    }
  }

  /** Where the session stands as a gate call is made (every gate call takes one). */
  at(): Mark {
    this.#firstContext ??= this.#context;
    return { turnsAt: this.#turns, cachedAt: this.#cached };
  }

  /** The history's size as the last call reported it: its whole input and its output. */
  contextTokens(): number {
    return this.#context;
  }

  recall(id: string): void {
    const held = this.#held.get(id);
    // A decision that did not fire reports recalled: false; its plan takes the recall.
    if (held?.fire) held.recalled = true;
    for (const plan of this.#plans) {
      if (!plan.ids.includes(id)) continue;
      plan.recalledIds ??= [];
      if (!plan.recalledIds.includes(id)) plan.recalledIds.push(id);
    }
  }

  /**
   * Adds a call's usage to the bill and, unless `turn` is false (usage a call
   * already counted did not report), counts the turn. A field that is there but
   * is not a count, a turn without its input or output count, or a 1-hour split
   * above the writes it splits, is named in `issues` and counted as nothing.
   * Returns what was counted, and the 1-hour writes among the cache writes.
   */
  observe(usage: ObservedUsage | null | undefined, turn = true): { counted: SessionUsage; written1h: number } {
    const call = `call ${this.#turns + (turn ? 1 : 0)}`;
    const counted = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    if (usage === null || usage === undefined) {
      if (turn) this.#issues.push(`${call}: usage is missing`);
    } else {
      for (const key of USAGE_KEYS) {
        const value: unknown = usage[key];
        if (value === undefined || value === null) {
          if (turn && REQUIRED.has(key)) this.#issues.push(`${call}: usage.${key} is missing`);
        } else if (isCount(value)) counted[key] = value;
        else
          this.#issues.push(
            `${call}: usage.${key} is ${JSON.stringify(value) ?? String(value)}, not a count of tokens`,
          );
      }
    }
    const oneHour: unknown = usage?.cache_creation?.ephemeral_1h_input_tokens;
    let written1h = 0;
    if (oneHour === undefined || oneHour === null) written1h = 0;
    else if (!isCount(oneHour))
      this.#issues.push(
        `${call}: usage.cache_creation.ephemeral_1h_input_tokens is ${JSON.stringify(oneHour)}, not a count of tokens`,
      );
    else if (oneHour > counted.cache_creation_input_tokens)
      this.#issues.push(
        `${call}: usage.cache_creation.ephemeral_1h_input_tokens exceeds usage.cache_creation_input_tokens`,
      );
    else written1h = oneHour;
    this.#written1h += written1h;
    for (const key of USAGE_KEYS) this.#usage[key] += counted[key];
    if (!turn) return { counted, written1h };
    if (this.#firstContext !== undefined && this.#turns > 0 && counted.cache_read_input_tokens === 0) this.#misses += 1;
    this.#diagnose(usage?.diagnostics);
    this.#turns += 1;
    if (counted.cache_read_input_tokens > 0) this.#cached += 1;
    this.#context =
      counted.input_tokens +
      counted.cache_read_input_tokens +
      counted.cache_creation_input_tokens +
      counted.output_tokens;
    return { counted, written1h };
  }

  // A call's diagnosed miss goes to the gate's account when it is the first call after a rewrite.
  #diagnose(diagnostics: ObservedUsage["diagnostics"]): void {
    const after = this.#rewrote;
    this.#rewrote = false;
    if (diagnostics === undefined || diagnostics === null || typeof diagnostics !== "object") return;
    this.#diagnosed = true;
    const missed = diagnostics.cache_miss_reason?.cache_missed_input_tokens;
    if (!isCount(missed)) return;
    this.#missed[after ? "after_gate_rewrite" : "other"] += missed;
  }

  /** One outcome per decision and plan the gate answered with an id. */
  outcomes(): OutcomeReport[] {
    const after = (mark: Mark) => ({
      turns_after: this.#turns - mark.turnsAt,
      cached_turns: this.#cached - mark.cachedAt,
    });
    const decisions = [...this.#held.values()].flatMap((held): OutcomeReport[] =>
      held.decisionId === undefined
        ? []
        : [
            {
              decision_id: held.decisionId,
              ...after(held),
              recalled: held.recalled,
              ...(held.contextTokens === undefined ? {} : { context_tokens: held.contextTokens }),
            },
          ],
    );
    const plans = this.#plans.map((plan): OutcomeReport => {
      const recalledIds = plan.recalledIds ?? [];
      return {
        decision_id: plan.decisionId,
        ...after(plan),
        recalled: recalledIds.length > 0,
        recalled_ids: recalledIds,
      };
    });
    // Server-side clearing has no recall tool: what it cleared is the outcome.
    const clearings = this.#clearings.map(
      (c): OutcomeReport =>
        ({
          decision_id: c.decisionId,
          ...after(c),
          recalled: false,
          cleared_tool_uses: c.clearedToolUses,
          cleared_input_tokens: c.clearedInputTokens,
        }) as OutcomeReport,
    );
    return [...decisions, ...plans, ...clearings];
  }

  /** The session's bill, or null before any model call was observed or while a usage field could not be read. */
  bill(sessionId: string, model: string): SessionReport | null {
    if (this.#turns === 0 || this.#issues.length > 0) return null;
    const usage = { ...this.#usage };
    // Sent split by TTL only when there were 1-hour writes: otherwise the report is the one it always was.
    const split =
      this.#written1h === 0
        ? {}
        : {
            cache_creation: {
              ephemeral_5m_input_tokens: usage.cache_creation_input_tokens - this.#written1h,
              ephemeral_1h_input_tokens: this.#written1h,
            },
          };
    return {
      session_id: sessionId,
      model_name: model,
      turns: this.#turns,
      usage: { ...usage, ...split } as SessionReport["usage"],
      ...(this.#diagnosed
        ? { covariate: this.#missed.other, cache_misses: { ...this.#missed } }
        : this.#firstContext === undefined
          ? {}
          : { covariate: this.#firstContext * this.#misses }),
    };
  }

  summary(sessionId: string) {
    const held = [...this.#held.values()];
    return {
      sessionId,
      turns: this.#turns,
      usage: { ...this.#usage },
      decisions: held.filter((h) => h.decisionId !== undefined).length + this.#plans.length + this.#clearings.length,
      stubbed: held.filter((h) => h.stub !== undefined).length,
      recalled:
        held.filter((h) => h.recalled).length + this.#plans.filter((p) => (p.recalledIds?.length ?? 0) > 0).length,
      usageIssues: [...this.#issues],
    };
  }
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
