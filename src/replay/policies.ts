/**
 * @module replay/policies
 *
 * The policies priced on the same calls, each named and parameterised
 * (docs/replay.md § Policies): keep everything; the gate in seed mode, in
 * cache_aware mode and as the clearing plan, through the pure core
 * (./gate-policies.ts); Anthropic's
 * `clear_tool_uses_20250919`; observation masking of all but the last M
 * outputs (its boundary moving every K calls); size-only stubbing;
 * deepagents-style eviction; Claude Code's persistence of large results.
 * Pure.
 */
import { DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS, DEFAULT_STUB_TOKENS } from "../gate";
import { gatePlan, gatePolicy } from "./gate-policies";
import { onEntry, PLACEHOLDER_TOKENS, type Policy } from "./policy";
import { frozenCompaction, headroomGate } from "./rivals";

export { DEFAULT_PLAN_EVERY, type GatePriors, gatePlan, gatePolicy, PlanCadence } from "./gate-policies";
export { onEntry, type Policy, type PolicyParams } from "./policy";
export { frozenCompaction, headroomGate } from "./rivals";

/**
 * Keeps everything: what happened.
 *
 * @example
 * keepEverything().name // "keep_everything"
 */
export function keepEverything(): Policy {
  return { name: "keep_everything", params: {}, start: () => ({ step: () => Infinity }) };
}

/**
 * Anthropic's `clear_tool_uses_20250919`: once a request's input passes
 * `trigger` tokens, every tool result but the last `keep` is cleared (its
 * tools in `exclude_tools` never), applied only when it clears at least
 * `clear_at_least` tokens more than the request before cleared.
 *
 * @example
 * clearToolUses().params // { trigger: 100000, keep: 3, clear_at_least: 0, exclude_tools: [] }
 */
export function clearToolUses(
  options: { trigger?: number; keep?: number; clear_at_least?: number; exclude_tools?: string[] } = {},
): Policy {
  const params = {
    trigger: options.trigger ?? 100_000,
    keep: options.keep ?? 3,
    clear_at_least: options.clear_at_least ?? 0,
    exclude_tools: options.exclude_tools ?? [],
  };
  const excluded = new Set(params.exclude_tools);
  return {
    name: "clear_tool_uses",
    params,
    start() {
      // Outputs before this index are cleared (or excluded): the set only grows, so each call looks at new ones.
      let cleared = 0;
      return {
        step(s) {
          if (cleared > s.outputs.length) cleared = 0;
          if (s.full(s.ctx.length) <= params.trigger) return Infinity;
          const upTo = Math.max(0, s.outputs.length - params.keep);
          let more = 0;
          for (let j = cleared; j < upTo; j++) {
            const id = s.ctx[s.outputs[j]!]!;
            if (!s.stub.has(id) && !excluded.has(s.trace.parts[id]!.tool ?? ""))
              more += s.sizes.tokens[id]! - PLACEHOLDER_TOKENS;
          }
          if (upTo <= cleared || more < params.clear_at_least) return Infinity;
          let changed = Infinity;
          for (let j = cleared; j < upTo; j++) {
            const position = s.outputs[j]!;
            const id = s.ctx[position]!;
            if (s.stub.has(id) || excluded.has(s.trace.parts[id]!.tool ?? "")) continue;
            s.stub.set(id, PLACEHOLDER_TOKENS);
            changed = Math.min(changed, position);
          }
          cleared = upTo;
          return changed;
        },
      };
    },
  };
}

/**
 * Observation masking: every tool output but the last `keep_last` is
 * replaced by a placeholder, the boundary recomputed every `every` calls.
 *
 * @example
 * observationMask({ keep_last: 10, every: 10 }).name // "mask_last_10_every_10"
 */
export function observationMask(options: { keep_last?: number; every?: number } = {}): Policy {
  const params = { keep_last: options.keep_last ?? 10, every: options.every ?? 1 };
  return {
    name: params.every === 1 ? `mask_last_${params.keep_last}` : `mask_last_${params.keep_last}_every_${params.every}`,
    params,
    start() {
      // Outputs before this index are masked: the boundary only moves on, so each call looks at new ones.
      let masked = 0;
      return {
        step(s) {
          if (masked > s.outputs.length) masked = 0;
          if (s.call % params.every !== 0) return Infinity;
          const upTo = Math.max(0, s.outputs.length - params.keep_last);
          let changed = Infinity;
          for (let j = masked; j < upTo; j++) {
            const position = s.outputs[j]!;
            const id = s.ctx[position]!;
            if (s.stub.has(id)) continue;
            s.stub.set(id, PLACEHOLDER_TOKENS);
            changed = Math.min(changed, position);
          }
          masked = Math.max(masked, upTo);
          return changed;
        },
      };
    },
  };
}

/**
 * Size-only stubbing: every output of at least `threshold` tokens, on entry, whatever it costs.
 *
 * @example
 * sizeOnly({ threshold: 10_000 }).params.stub_tokens // 200
 */
export function sizeOnly(options: { threshold?: number; stub_tokens?: number } = {}): Policy {
  const params = {
    threshold: options.threshold ?? DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS,
    stub_tokens: options.stub_tokens ?? DEFAULT_STUB_TOKENS,
  };
  return onEntry("size_only", params, (s, id) => (s.sizes.tokens[id]! >= params.threshold ? params.stub_tokens : null));
}

/**
 * deepagents-style eviction: an output over `threshold_tokens` goes to a
 * file; the history keeps a pointer and its first `preview_lines` lines
 * (each cut at 500 characters).
 *
 * @example
 * deepagentsEviction().params // { threshold_tokens: 20000, preview_lines: 10 }
 */
export function deepagentsEviction(options: { threshold_tokens?: number; preview_lines?: number } = {}): Policy {
  const params = { threshold_tokens: options.threshold_tokens ?? 20_000, preview_lines: options.preview_lines ?? 10 };
  return onEntry("deepagents_evict", params, (s, id) => {
    if (s.sizes.tokens[id]! <= params.threshold_tokens) return null;
    const part = s.trace.parts[id]!;
    // Each preview line cut at 500 characters, so a one-line dump does not keep itself whole.
    const preview =
      part.text === null
        ? 800
        : part.text.split("\n", params.preview_lines).reduce((sum, line) => sum + Math.min(line.length, 500) + 1, 0);
    return PLACEHOLDER_TOKENS * 4 + (preview / 4) * s.sizes.factor;
  });
}

/**
 * Claude Code's persistence of a result over `threshold_chars` characters:
 * saved to a file, a `preview_chars` preview left in the history.
 *
 * @example
 * claudeCodePersist().params // { threshold_chars: 50000, preview_chars: 2000 }
 */
export function claudeCodePersist(options: { threshold_chars?: number; preview_chars?: number } = {}): Policy {
  const params = { threshold_chars: options.threshold_chars ?? 50_000, preview_chars: options.preview_chars ?? 2_000 };
  return onEntry("claude_code_persist", params, (s, id) =>
    s.trace.parts[id]!.chars > params.threshold_chars
      ? PLACEHOLDER_TOKENS * 4 + (params.preview_chars / 4) * s.sizes.factor
      : null,
  );
}

/**
 * Every policy at its documented defaults, keep-everything first.
 *
 * @example
 * defaultPolicies().map((p) => p.name) // ["keep_everything", "gate_seed", "gate_cache_aware", "gate_plan", ...]
 */
export function defaultPolicies(): Policy[] {
  return [
    keepEverything(),
    gatePolicy("seed"),
    gatePolicy("cache_aware"),
    gatePlan(),
    clearToolUses(),
    observationMask(),
    observationMask({ every: 10 }),
    sizeOnly(),
    deepagentsEviction(),
    claudeCodePersist(),
    headroomGate(),
    frozenCompaction(),
  ];
}
