/**
 * @module replay/gate-policies
 *
 * The gate as a replay policy, through the pure core with the request a
 * client would send: seed or cache_aware on each tool output as it enters
 * the history, or the clearing plan every K calls over the history as it
 * stands. Pure.
 */
import {
  DEFAULT_CACHE_HIT_RATE,
  DEFAULT_EXPECTED_CONVERSATION_DEPTH,
  DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS,
  DEFAULT_P_RECALL,
  DEFAULT_STUB_TOKENS,
  decidePlan,
  MAX_PLAN_CANDIDATES,
  evaluateCacheAwareGate,
  evaluateOffloadGate,
  type PlanSegment,
} from "../gate";
import { onEntry, type Policy, type PolicyParams } from "./policy";
import type { StepState } from "./simulate";

/** The gate's priors, as a request would send them. */
export interface GatePriors {
  horizon: number;
  recall_probability: number;
  cache_hit_rate: number;
  /**
   * `large_offload_threshold_tokens`: in seed mode the pre-filter (default
   * 10,000, the reference's); in cache_aware mode and the plan an optional
   * floor under the economic pre-filter (default none: not sent).
   */
  threshold?: number;
  stub_tokens: number;
}

const GATE_DEFAULTS: GatePriors = {
  horizon: DEFAULT_EXPECTED_CONVERSATION_DEPTH,
  recall_probability: DEFAULT_P_RECALL,
  cache_hit_rate: DEFAULT_CACHE_HIT_RATE,
  stub_tokens: DEFAULT_STUB_TOKENS,
};

/** The pre-filter as the report prints it: the seed's threshold, or the economic one and its floor. */
function preFilterParams(mode: "seed" | "cache_aware", threshold: number | undefined): PolicyParams {
  return mode === "seed"
    ? { threshold: threshold ?? DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS }
    : { pre_filter: "economic", floor: threshold ?? "none" };
}

/** The request's threshold field: sent only when set, so cache_aware's pre-filter is the break-even. */
function thresholdField(mode: "seed" | "cache_aware", threshold: number | undefined) {
  const value = mode === "seed" ? (threshold ?? DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS) : threshold;
  return value === undefined ? {} : { large_offload_threshold_tokens: value };
}

/**
 * The gate on entry, seed or cache_aware, with the request a client would
 * send for the output: its measured tokens, the history before it, the
 * gate's default priors.
 *
 * @example
 * gatePolicy("cache_aware").params.pre_filter // "economic"
 * gatePolicy("cache_aware", { threshold: 10_000 }).params.floor // 10000: today's pre-filter as a floor
 */
export function gatePolicy(mode: "seed" | "cache_aware", priors: Partial<GatePriors> = {}): Policy {
  const { threshold, ...p } = { ...GATE_DEFAULTS, ...priors };
  return onEntry(`gate_${mode}`, { ...p, ...preFilterParams(mode, threshold) }, (s, id, position) => {
    const inputs = {
      model_name: s.priced.canonical,
      output_tokens: s.sizes.tokens[id]!,
      horizon: p.horizon,
      recall_probability: p.recall_probability,
      ...thresholdField(mode, threshold),
      stub_tokens: p.stub_tokens,
    };
    const decision =
      mode === "seed"
        ? evaluateOffloadGate(inputs, s.priced.row)
        : evaluateCacheAwareGate(
            { ...inputs, cache_hit_rate: p.cache_hit_rate, context_tokens: s.full(position), cache_ttl: s.ttl },
            s.priced.row,
          );
    return decision.fire ? p.stub_tokens : null;
  });
}

/**
 * The gate's clearing plan over the history as it stands, asked on the
 * clients' plan cadence (clients/typescript/src/plan-cadence.ts, which replay
 * may not import): at most once every `every` calls, or sooner once the
 * stubbable tokens that arrived since the last plan reach what the last
 * paying plan stubbed. Every
 * tool output not yet stubbed is a candidate; the plan's stubs go in in one
 * rewrite.
 *
 * @example
 * gatePlan({ every: 10 }).params // { ..., every: 10, cadence: "plan_cadence", pre_filter: "economic", floor: "none" }
 */
export function gatePlan(options: Partial<GatePriors> & { every?: number } = {}): Policy {
  const { threshold, every: _every, ...p } = { ...GATE_DEFAULTS, ...options };
  const every = options.every ?? 10;
  return {
    name: "gate_plan",
    params: { ...p, every, cadence: "plan_cadence", ...preFilterParams("cache_aware", threshold) },
    start: () => {
      // Calls since the last plan, and the tokens the last paying plan stubbed.
      let calls = 0;
      let paying = Infinity;
      // The stubbable tokens when a plan was last due, and those it declined (weighed again at the next K).
      let seen = 0;
      let declined = 0;
      // The tokens of outputs not stubbed, kept as a running sum over the outputs counted so far (linear in calls).
      let counted = 0;
      let stubbable = 0;
      return {
        step(s) {
          const changed = due(s) ? ask(s) : Infinity;
          calls += 1;
          return changed;
        },
      };
      function due(s: StepState): boolean {
        if (s.keep === 0 || counted > s.outputs.length) {
          // A compaction in the transcript dropped outputs: count what is left afresh.
          counted = 0;
          stubbable = 0;
        }
        for (; counted < s.outputs.length; counted++) {
          const id = s.ctx[s.outputs[counted]!]!;
          if (!s.stub.has(id)) stubbable += s.sizes.tokens[id]!;
        }
        const due = stubbable > 0 && (calls >= every || stubbable - declined >= paying);
        if (due) seen = stubbable;
        return due;
      }
      function ask(s: StepState): number {
        calls = 0;
        // A request weighs at most MAX_PLAN_CANDIDATES outputs: the largest not yet stubbed (the
        // latest of equal size); the rest stay in the history as fixed tokens, as a client sends them.
        const weighed = new Set(largestOpen(s, MAX_PLAN_CANDIDATES));
        const segments: PlanSegment[] = [{ tokens: s.sizes.constant }];
        let fixed = 0;
        let last = 0;
        for (const position of s.outputs) {
          const id = s.ctx[position]!;
          fixed += s.full(position) - s.full(last);
          last = position + 1;
          if (s.stub.has(id)) {
            fixed += s.stub.get(id)!;
            continue;
          }
          if (!weighed.has(position)) {
            fixed += s.sizes.tokens[id]!;
            continue;
          }
          segments.push({ tokens: fixed }, { id: String(position), tokens: s.sizes.tokens[id]! });
          fixed = 0;
        }
        segments.push({ tokens: fixed + s.full(s.ctx.length) - s.full(last) });
        const plan = decidePlan(
          {
            model_name: s.priced.canonical,
            horizon: p.horizon,
            recall_probability: p.recall_probability,
            cache_hit_rate: p.cache_hit_rate,
            cache_ttl: s.ttl,
            ...thresholdField("cache_aware", threshold),
            stub_tokens: p.stub_tokens,
            segments: segments.filter((g) => g.tokens > 0 || g.id !== undefined),
          },
          { status: "priced", row: s.priced.row, canonical: s.priced.canonical },
        );
        let changed = Infinity;
        let stubbed = 0;
        for (const member of plan.stub) {
          const position = Number(member);
          stubbed += s.sizes.tokens[s.ctx[position]!]!;
          if (!s.stub.has(s.ctx[position]!)) stubbable -= s.sizes.tokens[s.ctx[position]!]!;
          s.stub.set(s.ctx[position]!, p.stub_tokens);
          changed = Math.min(changed, position);
        }
        declined = Math.max(0, seen - stubbed);
        if (stubbed > 0) paying = stubbed;
        return changed;
      }
    },
  };
}

/**
 * The positions of the `k` largest tool outputs not stubbed (the latest of
 * equal size first), in one pass with a bounded sorted list, not a sort of
 * the whole history on every plan.
 */
function largestOpen(s: StepState, k: number): number[] {
  const top: { position: number; tokens: number }[] = [];
  const before = (a: { position: number; tokens: number }, b: { position: number; tokens: number }) =>
    a.tokens > b.tokens || (a.tokens === b.tokens && a.position > b.position);
  for (const position of s.outputs) {
    const id = s.ctx[position]!;
    if (s.stub.has(id)) continue;
    const candidate = { position, tokens: s.sizes.tokens[id]! };
    if (top.length === k && !before(candidate, top[k - 1]!)) continue;
    let at = top.length;
    while (at > 0 && before(candidate, top[at - 1]!)) at--;
    top.splice(at, 0, candidate);
    if (top.length > k) top.pop();
  }
  return top.map((c) => c.position);
}
