/**
 * @module replay/run
 *
 * Replays one trace under every policy: the sizes fitted to the recorded
 * bill, keep-everything checked against it (equal where usage is recorded),
 * each policy billed on the same calls from the recorded usage plus its
 * change, and its stubs charged recall hops over a range: the recalls the
 * transcript shows a policy adds (quotes never re-read), and every stubbed
 * output recalled once (the pessimistic end). A recall hop is one more call
 * whose input is the policy's history at that point, read from the cache,
 * plus the output written back and the answer. Pure.
 */
import { type CacheTtl, DEFAULT_RECALL_OUTPUT_TOKENS, type PricingMode } from "../gate";
import { type CalibrationMethod, fitSizes, recordedInput } from "./bill";
import { byName, type Trace, type TraceFormat, UNNAMED_MODEL } from "./formats";
import { defaultPolicies, type Policy, type PolicyParams } from "./policies";
import { hindsightFor } from "./oracle";
import type { PriceLookup } from "./pricing";
import { priorsOf, type RecallEvidence, recallEvidenceOf, type ToolPriors } from "./priors";
import { chargedRecall, detectRecalls, type RecallRule, recallAfter } from "./recalls";
import { type PolicyBill, pricedCalls, recordedCost, simulate, traceTtl } from "./simulate";

/** The range of a saving: the pessimistic end first. */
export type SavingRange = [pessimistic: number, detected: number];

/** One policy's result on one trace. */
export interface PolicyResult {
  name: string;
  params: PolicyParams;
  /** Cost with the detected recalls' hops. */
  cost_usd: number;
  /** Cost with every stubbed output recalled once. */
  cost_pessimistic_usd: number;
  /** What it saves against keep-everything: [pessimistic, detected]; negative costs more. */
  saving_usd: SavingRange;
  saving_pct: SavingRange;
  stubbed: number;
  /**
   * Recalls charged (detected) and at the pessimistic end; per rule, the
   * stubbed outputs each rule found needed again (re-reads and re-runs are
   * counted but never charged: the transcript already pays for them).
   */
  recalls: {
    detected: number;
    pessimistic: number;
    by_rule: Partial<Record<RecallRule, number>>;
    found_by_rule: Partial<Record<RecallRule, number>>;
  };
  /** Where the difference from keep-everything comes from (detected end): saving = carry − rewrites − hops. */
  decomposition: { carry_saved_usd: number; cache_rewrites_usd: number; recall_hops_usd: number };
  /** Tokens written to the cache (or billed uncached) beyond what keep-everything wrote. */
  cache_writes_caused_tokens: number;
  /** Cumulative cost after each call (detected recalls charged at their call). */
  cumulative: number[];
  /** Per tool: outputs stubbed and recalls detected. */
  tools: Record<string, { stubbed: number; recalls: number }>;
}

/** What replaying one trace found. */
export interface TraceReplay {
  session: string;
  format: TraceFormat;
  model: string;
  calls: number;
  /** cache_aware (the default): billed with the provider's cache; seed: the reference's bill, no cache. */
  mode: PricingMode;
  calibration: {
    method: CalibrationMethod;
    factor: number;
    constant_tokens: number;
    known_calls: number;
    measured_parts: number;
    ttl: CacheTtl;
  };
  /**
   * The recorded bill over the calls with usage, and keep-everything's bill of
   * those calls (equal by construction, within rounding); null in seed mode,
   * whose world has no cache to compare with.
   */
  check: { calls: number; recorded_usd: number; modelled_usd: number; error_pct: number } | null;
  /**
   * Keep-everything over every call against the file's own recorded cost
   * total, where it has one. `bound_usd`, where the writer rounded its counts
   * or its cost (aider), is how far apart the two may be from rounding alone:
   * `within_bound` says whether they are.
   */
  total_check: {
    recorded_usd: number;
    modelled_usd: number;
    error_pct: number;
    bound_usd?: number;
    within_bound?: boolean;
  } | null;
  /**
   * Where the transcript's history and the recorded input disagree (by more than 1%): the calls,
   * the tokens of difference, and their share of the recorded input of the calls with usage.
   * Those calls' positions are aligned to the recorded input before any stub is credited.
   */
  aligned: { calls: number; tokens: number; pct: number };
  /** How keep-everything was billed: from recorded usage, from the calibrated estimate, or both. */
  basis: { recorded_calls: number; calibrated_calls: number };
  /** Keep-everything "if caching were perfect": the modelled cache, blind to recorded misses (cache_aware only). */
  ideal_cache_usd: number | null;
  /** The model the calls were priced as, and whether --model supplied it. */
  priced_as: { model: string; supplied: boolean };
  /** The parent session of a subagent's file, where the file names one. */
  parent: string | null;
  /** What the bill assumed that the transcript does not show: the cache's TTL, timestamps, calibrated sizes. */
  assumptions: string[];
  /** The file's own recorded cost total (SWE-agent, mini-swe-agent, ATIF), where it has one. */
  recorded_total_usd: number | null;
  unpriced_calls: number;
  policies: PolicyResult[];
  tools: Record<string, { outputs: number; tokens: number; recalled: number }>;
  priors: ToolPriors;
  /** p's two ends per tool and band: charged recalls and any detection (docs/design/learning.md § One recall). */
  recall_evidence: RecallEvidence;
  notes: string[];
}

/** Why a trace was not replayed. */
export interface SkippedTrace {
  session: string;
  format: TraceFormat;
  skipped: string;
}

/**
 * Replays a trace, or says why not (no call of a priced model).
 *
 * @example
 * const r = replayTrace(trace, priceBook(seed.models));
 * "skipped" in r ? r.skipped : r.policies.map((p) => [p.name, p.saving_pct])
 */
export function replayTrace(
  trace: Trace,
  prices: PriceLookup,
  policies: Policy[] = defaultPolicies(),
  mode: PricingMode = "cache_aware",
): TraceReplay | SkippedTrace {
  const models = new Map<string, number>();
  for (const call of trace.calls) models.set(call.model, (models.get(call.model) ?? 0) + 1);
  const model = [...models.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const unknown = [...models.keys()].filter((m) => prices(m, null) === null);
  if (unknown.length === models.size) {
    return {
      session: trace.session,
      format: trace.format,
      skipped: models.has(UNNAMED_MODEL)
        ? "the transcript names no model: pass --model NAME to price it"
        : `unknown model ${unknown.map((m) => JSON.stringify(m)).join(", ")}: no pricing row (add one to the seed, or pass a pricing file)`,
    };
  }
  const notes = [...trace.notes];
  if (unknown.length > 0)
    notes.push(`calls of ${unknown.join(", ")} have no pricing row and are left out of every cost`);
  const sizes = fitSizes(trace);
  const drops = unmarkedDrops(trace);
  if (drops > 0)
    notes.push(
      `${drops} calls whose recorded input fell by more than half with no compaction in the transcript: the modelled history may hold parts the real input had dropped`,
    );
  const priced = pricedCalls(trace, prices);
  const ttl = traceTtl(trace, priced.find((row) => row !== null)?.row);
  const { byPart, firstCall } = detectRecalls(trace);

  // Keep-everything against the recorded bill, over the calls that recorded usage.
  const keepPolicy = policies.find((p) => p.name === "keep_everything") ?? policies[0]!;
  const keep = simulate(trace, sizes, prices, ttl, keepPolicy.start(), mode, { priced });
  let recorded = 0;
  let modelled = 0;
  let checked = 0;
  trace.calls.forEach((call, i) => {
    if (call.usage === null) return;
    const cost = recordedCost(call.usage, priced[i] ?? null);
    if (cost === null) return;
    recorded += cost;
    modelled += keep.perCall[i]!;
    checked++;
  });
  const check =
    checked === 0 || mode === "seed"
      ? null
      : {
          calls: checked,
          recorded_usd: recorded,
          modelled_usd: modelled,
          error_pct: recorded === 0 ? 0 : (100 * (modelled - recorded)) / recorded,
        };

  const recordedTotal = trace.totals?.cost_usd ?? 0;
  const bound = roundingBound(trace, priced);
  const total_check: TraceReplay["total_check"] =
    recordedTotal > 0 && mode === "cache_aware"
      ? {
          recorded_usd: recordedTotal,
          modelled_usd: keep.cost,
          error_pct: (100 * (keep.cost - recordedTotal)) / recordedTotal,
          ...(bound === null
            ? {}
            : keep.unpriced > 0
              ? { bound_usd: bound }
              : { bound_usd: bound, within_bound: Math.abs(keep.cost - recordedTotal) <= bound * (1 + 1e-9) }),
        }
      : null;
  if (total_check?.bound_usd !== undefined)
    notes.push(
      total_check.within_bound === undefined
        ? `recorded cost $${recordedTotal.toFixed(4)} not checked against the ±$${total_check.bound_usd.toFixed(4)} the writer's rounding allows: ${keep.unpriced} calls have no pricing row`
        : `recorded cost $${recordedTotal.toFixed(4)}, keep-everything $${keep.cost.toFixed(4)}: ${total_check.within_bound ? "within" : "OUTSIDE"} the ±$${total_check.bound_usd.toFixed(4)} the writer's rounding allows`,
    );
  const ideal_cache_usd =
    mode === "cache_aware" && keep.recorded_calls > 0
      ? simulate(trace, sizes, prices, ttl, keepPolicy.start(), mode, { ideal: true, priced }).cost
      : null;
  if (keep.aligned.calls > 0)
    notes.push(
      `${keep.aligned.calls} calls whose history differs from the recorded input (${Math.round(keep.aligned.tokens)} tokens in all): positions aligned to the recorded input before stubs are credited`,
    );
  if (keep.recorded_calls < trace.calls.length - keep.unpriced)
    notes.push(
      `${trace.calls.length - keep.unpriced - keep.recorded_calls} calls without recorded usage billed from the calibrated estimate`,
    );

  const tools: TraceReplay["tools"] = byName();
  trace.parts.forEach((p, id) => {
    if (p.kind !== "tool_output") return;
    const t = (tools[p.tool ?? "unknown"] ??= { outputs: 0, tokens: 0, recalled: 0 });
    t.outputs++;
    t.tokens += sizes.tokens[id]!;
    if ((byPart.get(id)?.length ?? 0) > 0) t.recalled++;
  });

  const results = policies.map((entry) => {
    // The oracle decides with hindsight: keep-everything's bill and the recalls replay will charge.
    const policy = hindsightFor(entry, trace, sizes, keep, byPart) ?? entry;
    const bill = policy === keepPolicy ? keep : simulate(trace, sizes, prices, ttl, policy.start(), mode, { priced });
    return priceRecalls(policy, bill, keep, trace, sizes.tokens, byPart);
  });
  return {
    session: trace.session,
    format: trace.format,
    model,
    calls: trace.calls.length,
    mode,
    calibration: {
      method: sizes.method,
      factor: sizes.factor,
      constant_tokens: sizes.constant,
      known_calls: sizes.known_calls,
      measured_parts: sizes.measured_parts,
      ttl,
    },
    check,
    total_check,
    aligned: { ...keep.aligned, pct: alignedPct(trace, keep.aligned.tokens) },
    basis: {
      recorded_calls: keep.recorded_calls,
      calibrated_calls: trace.calls.length - keep.unpriced - keep.recorded_calls,
    },
    ideal_cache_usd,
    priced_as: { model, supplied: trace.model_supplied === true },
    parent: trace.parent ?? null,
    assumptions: assumptionsOf(trace, keep.recorded_calls, keep.unpriced, ttl, sizes.method, sizes.factor),
    recorded_total_usd: trace.totals?.cost_usd ?? null,
    unpriced_calls: keep.unpriced,
    policies: results,
    tools,
    priors: priorsOf(trace, sizes.tokens, keep, byPart, firstCall),
    recall_evidence: recallEvidenceOf(trace, sizes.tokens, byPart, firstCall),
    notes,
  };
}

/**
 * How far a file's recorded cost may be from its usage priced at the rows
 * from rounding alone: each call's count errors at its rates, plus the
 * recorded cost's own rounding; null where the writer rounded nothing.
 */
function roundingBound(trace: Trace, priced: ReturnType<typeof pricedCalls>): number | null {
  let bound = trace.totals?.cost_rounding_usd ?? 0;
  let rounded = trace.totals?.cost_rounding_usd !== undefined;
  trace.calls.forEach((call, i) => {
    if (call.usage_error === undefined) return;
    rounded = true;
    bound += recordedCost(call.usage_error, priced[i] ?? null) ?? 0;
  });
  return rounded ? bound : null;
}

function priceRecalls(
  policy: Policy,
  bill: PolicyBill,
  keep: PolicyBill,
  trace: Trace,
  tokens: Float64Array,
  byPart: ReturnType<typeof detectRecalls>["byPart"],
): PolicyResult {
  const hopAt = new Float64Array(trace.calls.length);
  let detected = 0;
  let pessimisticCost = 0;
  const byRule: Partial<Record<RecallRule, number>> = {};
  const foundByRule: Partial<Record<RecallRule, number>> = {};
  let hopsUsd = 0;
  const tools: PolicyResult["tools"] = byName();
  const hop = (call: number, id: number) => {
    const r = bill.rates;
    return (
      bill.input[call]! * r.read[call]! + tokens[id]! * r.write[call]! + DEFAULT_RECALL_OUTPUT_TOKENS * r.out[call]!
    );
  };
  for (const [id, stubbedAt] of bill.stubbedAt) {
    const tool = trace.parts[id]!.tool ?? "unknown";
    const t = (tools[tool] ??= { stubbed: 0, recalls: 0 });
    t.stubbed++;
    const found = recallAfter(byPart.get(id), stubbedAt);
    if (found !== null) foundByRule[found.rule] = (foundByRule[found.rule] ?? 0) + 1;
    const recall = chargedRecall(byPart.get(id), stubbedAt);
    if (recall !== null) {
      const cost = hop(recall.call, id);
      hopAt[recall.call] = hopAt[recall.call]! + cost;
      hopsUsd += cost;
      pessimisticCost += cost;
      detected++;
      t.recalls++;
      byRule[recall.rule] = (byRule[recall.rule] ?? 0) + 1;
    } else pessimisticCost += hop(stubbedAt, id);
  }
  let running = 0;
  const cumulative = Array.from(bill.perCall, (c, i) => (running += c + hopAt[i]!));
  const cost = running;
  const pessimistic = bill.cost + pessimisticCost;
  const saving: SavingRange = [keep.cost - pessimistic, keep.cost - cost];
  const pct = (x: number) => (keep.cost === 0 ? 0 : (100 * x) / keep.cost);
  return {
    name: policy.name,
    params: policy.params,
    cost_usd: cost,
    cost_pessimistic_usd: pessimistic,
    saving_usd: saving,
    saving_pct: [pct(saving[0]), pct(saving[1])],
    stubbed: bill.stubbedAt.size,
    recalls: { detected, pessimistic: bill.stubbedAt.size, by_rule: byRule, found_by_rule: foundByRule },
    decomposition: {
      carry_saved_usd: keep.cost - bill.cost + bill.rewrite_usd,
      cache_rewrites_usd: bill.rewrite_usd,
      recall_hops_usd: hopsUsd,
    },
    cache_writes_caused_tokens: bill.written - keep.written,
    cumulative,
    tools,
  };
}

function assumptionsOf(
  trace: Trace,
  recordedCalls: number,
  unpriced: number,
  ttl: CacheTtl,
  method: CalibrationMethod,
  factor: number,
): string[] {
  const out: string[] = [];
  const estimated = trace.calls.length - unpriced - recordedCalls;
  if (recordedCalls > 0) out.push(`${recordedCalls} calls billed from their recorded usage`);
  if (estimated > 0) {
    out.push(
      `${estimated} calls billed from calibrated token estimates (factor ${factor.toFixed(2)}, fitted by ${method === "none" ? "nothing: characters ÷ 4" : method})`,
    );
    out.push(
      trace.calls.some((c) => c.at !== null)
        ? `cache TTL ${ttl} (from the recorded writes), judged by the calls' timestamps`
        : "no timestamps: the cache is taken never to expire on the estimated calls",
    );
  } else out.push(`cache TTL ${ttl} (from the recorded writes); recorded misses stay misses under every policy`);
  return out;
}

/** Calls of the same model whose recorded input fell below half the previous one's while the history was kept. */
function unmarkedDrops(trace: Trace): number {
  let drops = 0;
  let previous: { model: string; input: number } | null = null;
  for (const call of trace.calls) {
    if (call.usage === null) continue;
    const input = recordedInput(call.usage);
    if (previous !== null && call.keep > 0 && call.model === previous.model && input < previous.input / 2) drops++;
    previous = { model: call.model, input };
  }
  return drops;
}

/** Tokens as a share of the recorded input over the calls with usage, in %. */
function alignedPct(trace: Trace, tokens: number): number {
  let total = 0;
  for (const call of trace.calls) if (call.usage !== null) total += recordedInput(call.usage);
  return total === 0 ? 0 : (100 * tokens) / total;
}
