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
  evaluateCacheAwareGate,
  evaluateOffloadGate,
  type PlanSegment,
} from "../gate";
import { onEntry, type Policy } from "./policy";

/** The gate's priors, as a request would send them. */
export interface GatePriors {
  horizon: number;
  recall_probability: number;
  cache_hit_rate: number;
  threshold: number;
  stub_tokens: number;
}

const GATE_DEFAULTS: GatePriors = {
  horizon: DEFAULT_EXPECTED_CONVERSATION_DEPTH,
  recall_probability: DEFAULT_P_RECALL,
  cache_hit_rate: DEFAULT_CACHE_HIT_RATE,
  threshold: DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS,
  stub_tokens: DEFAULT_STUB_TOKENS,
};

/**
 * The gate on entry, seed or cache_aware, with the request a client would
 * send for the output: its measured tokens, the history before it, the
 * gate's default priors.
 *
 * @example
 * gatePolicy("cache_aware").name // "gate_cache_aware"
 */
export function gatePolicy(mode: "seed" | "cache_aware", priors: Partial<GatePriors> = {}): Policy {
  const p = { ...GATE_DEFAULTS, ...priors };
  return onEntry(`gate_${mode}`, { ...p }, (s, id, position) => {
    const inputs = {
      model_name: s.priced.canonical,
      output_tokens: s.sizes.tokens[id]!,
      horizon: p.horizon,
      recall_probability: p.recall_probability,
      large_offload_threshold_tokens: p.threshold,
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
 * The gate's clearing plan, asked every `every` calls over the history as it
 * stands: every tool output not yet stubbed is a candidate; the plan's stubs
 * go in in one rewrite.
 *
 * @example
 * gatePlan({ every: 10 }).params.every // 10
 */
export function gatePlan(options: Partial<GatePriors> & { every?: number } = {}): Policy {
  const p = { ...GATE_DEFAULTS, ...options };
  const every = options.every ?? 10;
  return {
    name: "gate_plan",
    params: { ...p, every },
    start: () => ({
      step(s) {
        if (s.call === 0 || s.call % every !== 0) return Infinity;
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
            large_offload_threshold_tokens: p.threshold,
            stub_tokens: p.stub_tokens,
            segments: segments.filter((g) => g.tokens > 0 || g.id !== undefined),
          },
          { status: "priced", row: s.priced.row, canonical: s.priced.canonical },
        );
        let changed = Infinity;
        for (const member of plan.stub) {
          const position = Number(member);
          s.stub.set(s.ctx[position]!, p.stub_tokens);
          changed = Math.min(changed, position);
        }
        return changed;
      },
    }),
  };
}
