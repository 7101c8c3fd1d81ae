/**
 * The gate request bodies the fuzz suite sends (test/surface/fuzz*.test.ts): mostly
 * plausible, some with one field gone wild, some wild throughout. Shared
 * with test/gate/compiled-request.test.ts, which holds the compiled validator to
 * zod's verdict over the same corpus.
 *
 * @module
 */
import fc from "fast-check";

/** Model names the fuzz suite asks about: priced, unpriced, dated, and routed as LiteLLM and OpenRouter spell them. */
export const MODELS = [
  "claude-opus-4-6",
  "gpt-5",
  "unknown-model",
  "claude-opus-4-5-20251101",
  "openrouter/anthropic/claude-opus-4-6",
  "openai/gpt-5",
  "vertex_ai/claude-opus-4-6@20260205",
];

/** A probability: any double in [0, 1]. */
export const unitDouble = fc.double({ min: 0, max: 1, noNaN: true });
/** A [lo, hi] pair of `value`, in order. */
export const orderedPair = <T extends number>(value: fc.Arbitrary<T>) =>
  fc.tuple(value, value).map(([a, b]) => (a <= b ? [a, b] : [b, a]));

/** A gate request a careful caller might send: every field in its range. */
export const plausibleGate = fc.record(
  {
    model_name: fc.constantFrom(...MODELS),
    output_tokens: fc.nat({ max: 400_000 }),
    horizon: fc.nat({ max: 60 }),
    recall_probability: unitDouble,
    stub_tokens: fc.nat({ max: 2_000 }),
    pricing_mode: fc.constantFrom("seed", "cache_aware"),
    cache_hit_rate: unitDouble,
    context_tokens: fc.nat({ max: 400_000 }),
    offload_at: fc.constantFrom("entry", "retroactive"),
    suffix_tokens: fc.nat({ max: 200_000 }),
    cache_ttl: fc.constantFrom("5m", "1h"),
    recall_placement: fc.constantFrom("append", "in_place"),
    horizon_range: orderedPair(fc.nat({ max: 60 })),
    recall_probability_range: orderedPair(unitDouble),
    cache_hit_rate_range: orderedPair(unitDouble),
    dry_run: fc.boolean(),
    call_index: fc.nat({ max: 2_000 }),
    subagent: fc.boolean(),
    agent: fc.constantFrom("claude-code", "mini-swe-agent", "swe-agent", "codex", "gemini-cli", "my-agent.v2"),
  },
  { requiredKeys: ["model_name", "output_tokens"] },
);

/** Any value in any field, unknown fields too. */
export const wildGate = fc.record(
  {
    model_name: fc.oneof(fc.constantFrom(...MODELS), fc.string({ maxLength: 140 }), fc.jsonValue()),
    output_tokens: fc.oneof(fc.nat({ max: 2_000_000 }), fc.double(), fc.jsonValue()),
    output_chars: fc.oneof(fc.nat(), fc.double()),
    horizon: fc.oneof(fc.nat({ max: 100 }), fc.integer(), fc.double(), fc.jsonValue()),
    recall_probability: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.double(), fc.jsonValue()),
    large_offload_threshold_tokens: fc.oneof(fc.nat(), fc.double()),
    stub_tokens: fc.nat(),
    recall_input_tokens: fc.nat(),
    recall_output_tokens: fc.nat(),
    pricing_mode: fc.constantFrom("seed", "cache_aware", "bogus"),
    cache_hit_rate: fc.double(),
    context_tokens: fc.nat(),
    offload_at: fc.oneof(fc.constantFrom("entry", "retroactive", "Retroactive", ""), fc.jsonValue()),
    suffix_tokens: fc.oneof(fc.nat(), fc.double(), fc.jsonValue()),
    cache_ttl: fc.oneof(fc.constantFrom("5m", "1h", "30m", "60m", "1H"), fc.jsonValue()),
    recall_placement: fc.oneof(fc.constantFrom("append", "in_place", "In_place", "end"), fc.jsonValue()),
    horizon_range: fc.oneof(fc.array(fc.oneof(fc.integer(), fc.double()), { maxLength: 3 }), fc.jsonValue()),
    recall_probability_range: fc.oneof(fc.array(fc.double(), { maxLength: 3 }), fc.jsonValue()),
    cache_hit_rate_range: fc.oneof(fc.array(fc.double(), { maxLength: 3 }), fc.jsonValue()),
    dry_run: fc.oneof(fc.boolean(), fc.jsonValue()),
    call_index: fc.oneof(fc.nat({ max: 2_000_000 }), fc.integer(), fc.double(), fc.jsonValue()),
    subagent: fc.oneof(fc.boolean(), fc.constantFrom("true", 0, 1), fc.jsonValue()),
    agent: fc.oneof(fc.constantFrom("claude-code", "Claude-Code", "", "a".repeat(65), "gemini cli"), fc.jsonValue()),
    unknown_field: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

// Mostly plausible requests, some with one field gone wild, some wild throughout.
export const gateRequest = fc.oneof(
  { weight: 3, arbitrary: plausibleGate },
  {
    weight: 3,
    arbitrary: fc.tuple(plausibleGate, wildGate, fc.nat()).map(([body, wild, pick]) => {
      const keys = Object.keys(wild);
      const key = keys[pick % Math.max(keys.length, 1)];
      return key === undefined ? body : { ...body, [key]: wild[key as keyof typeof wild] };
    }),
  },
  { weight: 1, arbitrary: wildGate },
);

const CACHE_AWARE_ONLY = [
  "cache_hit_rate",
  "context_tokens",
  "offload_at",
  "suffix_tokens",
  "cache_ttl",
  "recall_placement",
  "cache_hit_rate_range",
] as const;

/**
 * Plausible bodies without most of what the checks across fields refuse (a
 * point beside its range, suffix_tokens without a retroactive offload, a
 * cache-aware field in seed mode): most are decided, where the fuzz
 * corpus's are mostly refused.
 */
export const acceptedGate = fc.tuple(plausibleGate, fc.nat({ max: 9 })).map(([body, pick]) => {
  const { suffix_tokens, horizon, recall_probability, cache_hit_rate, ...rest } = body;
  let kept: Record<string, unknown> = pick === 0 ? { ...body } : rest;
  if (pick % 2 === 1 && suffix_tokens !== undefined) kept = { ...kept, offload_at: "retroactive", suffix_tokens };
  if (kept.pricing_mode !== "cache_aware" && pick !== 0) for (const field of CACHE_AWARE_ONLY) delete kept[field];
  return kept;
});
