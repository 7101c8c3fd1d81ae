/**
 * @module replay/rivals
 *
 * Rivals that publish their rule, priced on the same calls as every other
 * policy (docs/replay.md § Policies): headroom's net-cost gate, and a
 * context-guru-style compaction frozen once made. Our reading of each is in
 * its parameters; neither tool's code is copied. Pure.
 */
import { ratesAt } from "../gate";
import { onEntry, PLACEHOLDER_TOKENS, type Policy } from "./policy";
import { explicitWrites } from "./simulate";

/**
 * headroom's net-cost gate: compress an output when
 * `gain = Δ(w + r(R−1)) − p_alive(w−r)(S+Δ) > 0`, where Δ is the tokens the
 * compression removes, w and r the write and read prices per token, R the
 * reads the output would see, p_alive the chance the cache holding it is
 * alive and S the tokens after it that a change would write again. Decided
 * on entry, with S the tokens after the output in that call's input.
 *
 * @example
 * headroomGate().params // { reads: 10, p_alive: 0.9, keep_fraction: 0.3, min_tokens: 500 }
 */
export function headroomGate(
  options: { reads?: number; p_alive?: number; keep_fraction?: number; min_tokens?: number } = {},
): Policy {
  const params = {
    reads: options.reads ?? 10,
    p_alive: options.p_alive ?? 0.9,
    keep_fraction: options.keep_fraction ?? 0.3,
    min_tokens: options.min_tokens ?? 500,
  };
  return onEntry("headroom_net_cost", params, (s, id, position) => {
    const tokens = s.sizes.tokens[id]!;
    if (tokens < params.min_tokens) return null;
    const delta = tokens * (1 - params.keep_fraction);
    const total = s.full(s.ctx.length);
    const rates = ratesAt(s.priced.row, total, s.ttl);
    const w = explicitWrites(s.priced) ? rates.write : rates.in;
    const r = rates.read;
    const after = total - s.full(position + 1);
    const gain = delta * (w + r * (params.reads - 1)) - params.p_alive * (w - r) * (after + delta);
    return gain > 0 ? tokens - delta : null;
  });
}

/**
 * A context-guru-style compaction: once the input passes `trigger` tokens,
 * every tool output before the last `keep` is replaced by a summary of
 * `summary_fraction` of its tokens, and the compaction is frozen: replayed
 * byte-identically on every later call, so the cache is written again once
 * per compaction, not on every call. The next compaction comes when the input
 * passes the trigger again.
 *
 * @example
 * frozenCompaction().name // "frozen_compaction"
 */
export function frozenCompaction(options: { trigger?: number; keep?: number; summary_fraction?: number } = {}): Policy {
  const params = {
    trigger: options.trigger ?? 100_000,
    keep: options.keep ?? 3,
    summary_fraction: options.summary_fraction ?? 0.1,
  };
  return {
    name: "frozen_compaction",
    params,
    start() {
      let compacted = 0;
      // What earlier compactions removed from the input, kept as a running sum (linear in calls).
      let removed = 0;
      return {
        step(s) {
          if (compacted > s.outputs.length) compacted = removed = 0;
          if (s.full(s.ctx.length) - removed <= params.trigger) return Infinity;
          const upTo = s.outputs.length - params.keep;
          let changed = Infinity;
          for (let j = compacted; j < upTo; j++) {
            const position = s.outputs[j]!;
            const id = s.ctx[position]!;
            if (s.stub.has(id)) continue;
            const summary = Math.max(PLACEHOLDER_TOKENS, s.sizes.tokens[id]! * params.summary_fraction);
            s.stub.set(id, summary);
            removed += s.sizes.tokens[id]! - summary;
            changed = Math.min(changed, position);
          }
          compacted = Math.max(compacted, upTo);
          return changed;
        },
      };
    },
  };
}
