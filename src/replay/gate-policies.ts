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
  MAX_PLAN_CANDIDATES,
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
 * send for the output: its measured tokens, which a recall brings back whole
 * (recall_input_tokens, as both clients send it), the history before it, the
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
      recall_input_tokens: s.sizes.tokens[id]!,
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

/** K: model calls between two plans, as the clients' default (clients/constants.json's default_plan_every). */
export const DEFAULT_PLAN_EVERY = 10;

/**
 * The clients' plan cadence (clients/typescript/src/plan-cadence.ts, which
 * replay may not import; clients/constants.json's plan_cadence_vectors pin all
 * three): at most once every `every` calls, or sooner once the stubbable
 * tokens that arrived since the last plan reach what the last paying plan
 * stubbed. Outputs a plan declined are weighed again at the next K calls.
 *
 * @example
 * const cadence = new PlanCadence(2);
 * cadence.call(); cadence.call();
 * cadence.due(40_000) // true
 */
export class PlanCadence {
  // Calls since the last plan, and the tokens the last paying plan stubbed.
  #calls = 0;
  #paying = Infinity;
  // The stubbable tokens when a plan was last due, and those it declined.
  #seen = 0;
  #declined = 0;

  constructor(readonly every: number = DEFAULT_PLAN_EVERY) {}

  /** One model call. */
  call(): void {
    this.#calls += 1;
  }

  /** Whether to ask now, with this many tokens of outputs held in full that a plan could stub. */
  due(stubbableTokens: number): boolean {
    const due = stubbableTokens > 0 && (this.#calls >= this.every || stubbableTokens - this.#declined >= this.#paying);
    if (due) this.#seen = stubbableTokens;
    return due;
  }

  /** A plan was asked and stubbed this many tokens (0: it kept everything). */
  asked(stubbedTokens: number): void {
    this.#calls = 0;
    this.#declined = Math.max(0, this.#seen - stubbedTokens);
    if (stubbedTokens > 0) this.#paying = stubbedTokens;
  }
}

/**
 * The gate's clearing plan over the history as it stands, asked on the
 * clients' plan cadence (PlanCadence). Every tool output not yet stubbed is
 * a candidate; the plan's stubs go in in one rewrite.
 *
 * @example
 * gatePlan({ every: 10 }).params // { ..., every: 10, cadence: "plan_cadence", pre_filter: "economic", floor: "none" }
 */
export function gatePlan(options: Partial<GatePriors> & { every?: number } = {}): Policy {
  const { threshold, every: _every, ...p } = { ...GATE_DEFAULTS, ...options };
  const every = options.every ?? DEFAULT_PLAN_EVERY;
  return {
    name: "gate_plan",
    params: { ...p, every, cadence: "plan_cadence", ...preFilterParams("cache_aware", threshold) },
    start: () => {
      const cadence = new PlanCadence(every);
      // The tokens of outputs not stubbed, kept as a running sum over the outputs counted so far (linear in calls).
      let counted = 0;
      let stubbable = 0;
      // The open outputs by size (a heap, stubbed ones dropped as they surface) and the tokens the
      // plan's stubs removed by position (a Fenwick tree): a plan request is built from them in
      // time that does not grow with the history.
      let open = new OutputHeap();
      let removed = new PositionSums(1024);
      return {
        step(s) {
          const changed = due(s) ? ask(s) : Infinity;
          cadence.call();
          return changed;
        },
      };
      function due(s: StepState): boolean {
        if (s.keep === 0 || counted > s.outputs.length) {
          // A compaction in the transcript dropped outputs: count what is left afresh.
          counted = 0;
          stubbable = 0;
          open = new OutputHeap();
          removed = new PositionSums(1024);
        }
        for (; counted < s.outputs.length; counted++) {
          const position = s.outputs[counted]!;
          const id = s.ctx[position]!;
          if (s.stub.has(id)) continue;
          stubbable += s.sizes.tokens[id]!;
          open.push({ position, tokens: s.sizes.tokens[id]! });
        }
        return cadence.due(stubbable);
      }
      function ask(s: StepState): number {
        // A request weighs at most MAX_PLAN_CANDIDATES outputs: the largest not yet stubbed (the
        // latest of equal size); the rest stay in the history as fixed tokens, as a client sends them.
        const weighed = open
          .top(MAX_PLAN_CANDIDATES, (c) => c.position < s.ctx.length && !s.stub.has(s.ctx[c.position]!))
          .sort((x, y) => x.position - y.position);
        const segments: PlanSegment[] = [{ tokens: s.sizes.constant }];
        let last = 0;
        for (const { position, tokens } of weighed) {
          segments.push(
            { tokens: s.full(position) - s.full(last) - removed.between(last, position) },
            { id: String(position), tokens },
          );
          last = position + 1;
        }
        segments.push({ tokens: s.full(s.ctx.length) - s.full(last) - removed.between(last, s.ctx.length) });
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
          removed.add(position, s.sizes.tokens[s.ctx[position]!]! - p.stub_tokens);
          s.stub.set(s.ctx[position]!, p.stub_tokens);
          changed = Math.min(changed, position);
        }
        cadence.asked(stubbed);
        return changed;
      }
    },
  };
}

interface Candidate {
  position: number;
  tokens: number;
}

/** Larger first; of equal size, the later. */
const ahead = (a: Candidate, b: Candidate) => a.tokens > b.tokens || (a.tokens === b.tokens && a.position > b.position);

/** A max-heap of open outputs by size: the plan's candidates in O(k log n), not a sort of the history. */
class OutputHeap {
  private readonly items: Candidate[] = [];

  push(c: Candidate): void {
    const items = this.items;
    items.push(c);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!ahead(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  private pop(): Candidate | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < items.length && ahead(items[l]!, items[best]!)) best = l;
        if (r < items.length && ahead(items[r]!, items[best]!)) best = r;
        if (best === i) break;
        [items[i], items[best]] = [items[best]!, items[i]!];
        i = best;
      }
    }
    return top;
  }

  /** The k largest that are still `open`; the rest that surface are dropped for good. */
  top(k: number, open: (c: Candidate) => boolean): Candidate[] {
    const out: Candidate[] = [];
    while (out.length < k) {
      const c = this.pop();
      if (c === undefined) break;
      if (open(c)) out.push(c);
    }
    for (const c of out) this.push(c);
    return out;
  }
}

/** Sums by position (a Fenwick tree that grows): the tokens stubs removed between two positions. */
class PositionSums {
  private tree: Float64Array;
  private readonly entries: [number, number][] = [];

  constructor(capacity: number) {
    this.tree = new Float64Array(capacity + 1);
  }

  add(position: number, value: number): void {
    this.entries.push([position, value]);
    if (position + 1 >= this.tree.length) {
      this.tree = new Float64Array(Math.max(2 * this.tree.length, position + 2));
      for (const [p, v] of this.entries) this.bump(p, v);
    } else this.bump(position, value);
  }

  private bump(position: number, value: number): void {
    for (let x = position + 1; x < this.tree.length; x += x & -x) this.tree[x] = this.tree[x]! + value;
  }

  private before(position: number): number {
    let sum = 0;
    for (let x = Math.min(position, this.tree.length - 1); x > 0; x -= x & -x) sum += this.tree[x]!;
    return sum;
  }

  /** The sum over positions in [from, to). */
  between(from: number, to: number): number {
    return to <= from ? 0 : this.before(to) - this.before(from);
  }
}
