/**
 * @module replay/summary
 *
 * Totals over many traces, kept as running sums so a folder of 10,000
 * sessions never needs them all in memory: per policy, per tool, the check
 * against the recorded bills, and the priors. Pure.
 */

import { byName } from "./formats";
import type { PolicyParams } from "./policy";
import { mergePriors, type PriorsDocument, type ToolPriors } from "./priors";
import type { SavingRange, SkippedTrace, TraceReplay } from "./run";

/** One policy's totals. */
export interface PolicyTotal {
  name: string;
  /** Its parameters, as the first session replayed under it had them. */
  params: PolicyParams;
  cost_usd: number;
  cost_pessimistic_usd: number;
  saving_usd: SavingRange;
  saving_pct: SavingRange;
  stubbed: number;
  recalls_detected: number;
  cache_writes_caused_tokens: number;
  /** Where the difference comes from (detected end): saving = carry saved − cache rewrites − recall hops. */
  carry_saved_usd: number;
  cache_rewrites_usd: number;
  recall_hops_usd: number;
  /** Sessions where the policy costs more than keep-everything (detected end). */
  sessions_costing_more: number;
  /** "saves" only when even the pessimistic end saves; "costs" when even the detected end loses. */
  verdict: "saves" | "costs" | "uncertain" | "no change";
}

/** A folder's totals. */
export interface ReplaySummary {
  sessions: number;
  skipped: number;
  calls: number;
  keep_everything_usd: number;
  /** Keep-everything if caching were perfect (the modelled cache, blind to the recorded misses). */
  ideal_cache_usd: number;
  /** Sessions billed wholly or partly from calibrated estimates (no recorded usage). */
  calibrated_sessions: number;
  check: { calls: number; recorded_usd: number; modelled_usd: number; error_pct: number };
  policies: PolicyTotal[];
  tools: Record<
    string,
    {
      outputs: number;
      tokens: number;
      recalled: number;
      policies: Record<string, { stubbed: number; recalls: number }>;
    }
  >;
  priors: ToolPriors;
}

/**
 * The verdict on a saving range: never "saves" on the detected end alone.
 *
 * @example
 * verdictOf([-0.2, 1.5]) // "uncertain"
 * verdictOf([0.1, 1.5]) // "saves"
 */
export function verdictOf(range: SavingRange): PolicyTotal["verdict"] {
  if (range[0] === 0 && range[1] === 0) return "no change";
  if (range[0] > 0) return "saves";
  if (range[1] < 0) return "costs";
  return "uncertain";
}

/** Running totals; add each trace's result as it is replayed. */
export class ReplayTotals {
  private sessions = 0;
  private skipped = 0;
  private calls = 0;
  private keep = 0;
  private ideal = 0;
  private calibrated = 0;
  private readonly check = { calls: 0, recorded_usd: 0, modelled_usd: 0 };
  private readonly policies = new Map<string, Omit<PolicyTotal, "saving_pct" | "verdict">>();
  private readonly tools: ReplaySummary["tools"] = byName();
  private readonly priors: ToolPriors = byName();

  add(result: TraceReplay | SkippedTrace): void {
    if ("skipped" in result) {
      this.skipped++;
      return;
    }
    this.sessions++;
    this.calls += result.calls;
    if (result.basis.calibrated_calls > 0) this.calibrated++;
    const keepCost = result.policies.find((p) => p.name === "keep_everything")?.cost_usd ?? 0;
    this.ideal += result.ideal_cache_usd ?? keepCost;
    if (result.check !== null) {
      this.check.calls += result.check.calls;
      this.check.recorded_usd += result.check.recorded_usd;
      this.check.modelled_usd += result.check.modelled_usd;
    }
    for (const p of result.policies) {
      if (p.name === "keep_everything") this.keep += p.cost_usd;
      const t = this.policies.get(p.name) ?? {
        name: p.name,
        params: p.params,
        cost_usd: 0,
        cost_pessimistic_usd: 0,
        saving_usd: [0, 0],
        stubbed: 0,
        recalls_detected: 0,
        cache_writes_caused_tokens: 0,
        carry_saved_usd: 0,
        cache_rewrites_usd: 0,
        recall_hops_usd: 0,
        sessions_costing_more: 0,
      };
      t.carry_saved_usd += p.decomposition.carry_saved_usd;
      t.cache_rewrites_usd += p.decomposition.cache_rewrites_usd;
      t.recall_hops_usd += p.decomposition.recall_hops_usd;
      if (p.cost_usd > keepCost * (1 + 1e-9) + 1e-12) t.sessions_costing_more++;
      t.cost_usd += p.cost_usd;
      t.cost_pessimistic_usd += p.cost_pessimistic_usd;
      t.saving_usd = [t.saving_usd[0] + p.saving_usd[0], t.saving_usd[1] + p.saving_usd[1]];
      t.stubbed += p.stubbed;
      t.recalls_detected += p.recalls.detected;
      t.cache_writes_caused_tokens += p.cache_writes_caused_tokens;
      this.policies.set(p.name, t);
      for (const [tool, v] of Object.entries(p.tools)) {
        const entry = (this.tools[tool] ??= { outputs: 0, tokens: 0, recalled: 0, policies: byName() });
        const slot = (entry.policies[p.name] ??= { stubbed: 0, recalls: 0 });
        slot.stubbed += v.stubbed;
        slot.recalls += v.recalls;
      }
    }
    for (const [tool, v] of Object.entries(result.tools)) {
      const entry = (this.tools[tool] ??= { outputs: 0, tokens: 0, recalled: 0, policies: byName() });
      entry.outputs += v.outputs;
      entry.tokens += v.tokens;
      entry.recalled += v.recalled;
    }
    mergePriors(this.priors, result.priors);
  }

  summary(): ReplaySummary {
    const pct = (x: number) => (this.keep === 0 ? 0 : (100 * x) / this.keep);
    const { calls, recorded_usd, modelled_usd } = this.check;
    return {
      sessions: this.sessions,
      skipped: this.skipped,
      calls: this.calls,
      keep_everything_usd: this.keep,
      ideal_cache_usd: this.ideal,
      calibrated_sessions: this.calibrated,
      check: {
        calls,
        recorded_usd,
        modelled_usd,
        error_pct: recorded_usd === 0 ? 0 : (100 * (modelled_usd - recorded_usd)) / recorded_usd,
      },
      policies: [...this.policies.values()].map((p) => ({
        ...p,
        saving_pct: [pct(p.saving_usd[0]), pct(p.saving_usd[1])] as SavingRange,
        verdict: verdictOf(p.saving_usd),
      })),
      tools: this.tools,
      priors: this.priors,
    };
  }

  /** The priors in the shape `POST /v1/admin/learning/import` takes. */
  priorsDocument(): PriorsDocument {
    return { version: 1, source: "replay", tools: this.priors };
  }
}
