import fc from "fast-check";
import { MAX_CURVE_POINTS } from "../../src/gate";
import { gateRequest, MODELS, wildGate } from "./fuzz-gate-bodies";

export const curveSpan = {
  points: fc.oneof(fc.integer({ min: -2, max: MAX_CURVE_POINTS + 2 }), fc.double(), fc.jsonValue()),
  horizon_max: fc.oneof(fc.integer({ min: -1, max: 2_000_000 }), fc.double()),
  output_tokens_max: fc.oneof(fc.nat({ max: 5_000_000 }), fc.constant(1e12), fc.double()),
};

export const curveRequest = fc.record({ request: gateRequest, ...curveSpan }, { requiredKeys: ["request"] });
export const plausibleSegment = fc.oneof(
  fc.record({ tokens: fc.nat({ max: 200_000 }) }),
  fc.record(
    {
      id: fc.stringMatching(/^[a-z0-9_]{1,12}$/),
      tokens: fc.nat({ max: 200_000 }),
      recall_probability: fc.double({ min: 0, max: 1, noNaN: true }),
      stub_tokens: fc.nat({ max: 2_000 }),
    },
    { requiredKeys: ["id", "tokens"] },
  ),
);

export const plausiblePlan = fc.record(
  {
    model_name: fc.constantFrom(...MODELS),
    segments: fc.array(plausibleSegment, { minLength: 1, maxLength: 40 }),
    horizon: fc.nat({ max: 60 }),
    recall_probability: fc.double({ min: 0, max: 1, noNaN: true }),
    cache_hit_rate: fc.double({ min: 0, max: 1, noNaN: true }),
    cache_ttl: fc.constantFrom("5m", "1h"),
    recall_placement: fc.constantFrom("append", "in_place"),
    large_offload_threshold_tokens: fc.nat({ max: 20_000 }),
    dry_run: fc.boolean(),
  },
  { requiredKeys: ["model_name", "segments"] },
);

export const wildSegment = fc.record(
  {
    id: fc.oneof(fc.string({ maxLength: 140 }), fc.jsonValue()),
    tokens: fc.oneof(fc.nat(), fc.double(), fc.integer(), fc.jsonValue()),
    recall_probability: fc.oneof(fc.double(), fc.jsonValue()),
    stub_tokens: fc.oneof(fc.nat(), fc.double()),
    extra: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

// Plausible plans, some with a wild segment or field, some with ids repeated or past the limits.
export const planRequest = fc.oneof(
  { weight: 3, arbitrary: plausiblePlan },
  {
    weight: 2,
    arbitrary: fc.tuple(plausiblePlan, wildSegment, fc.nat()).map(([body, wild, at]) => {
      const cut = at % (body.segments.length + 1);
      return { ...body, segments: [...body.segments.slice(0, cut), wild, ...body.segments.slice(cut)] };
    }),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(plausiblePlan, fc.nat({ max: 600 }), fc.nat({ max: 3 })).map(([body, count, ids]) => ({
      ...body,
      segments: Array.from({ length: count }, (_, i) => ({ id: `c${i % (ids + 1) === 0 ? i : 0}`, tokens: 12_000 })),
    })),
  },
  { weight: 1, arbitrary: fc.tuple(plausiblePlan, wildGate).map(([body, wild]) => ({ ...body, ...wild })) },
);

// A plan's body with tools named on some segments (the clearing's exclude_tools), and the placeholder's size.
export const clearingRequest = fc
  .tuple(
    planRequest,
    fc.array(
      fc.oneof(fc.constantFrom("grep", "web_fetch", "read_file"), fc.string({ maxLength: 70 }), fc.jsonValue()),
      { maxLength: 6 },
    ),
    fc.oneof(fc.nat({ max: 400 }), fc.double(), fc.jsonValue()),
  )
  .map(([body, tools, placeholder]) => {
    const segments = Array.isArray(body.segments)
      ? body.segments.map((segment: unknown, i: number) =>
          i < tools.length && typeof segment === "object" && segment !== null
            ? { ...segment, tool_name: tools[i] }
            : segment,
        )
      : body.segments;
    return { ...body, segments, placeholder_tokens: placeholder };
  });

export const pricingRow = fc.record(
  {
    input: fc.oneof(fc.double({ min: 0, max: 100, noNaN: true }), fc.double(), fc.jsonValue()),
    output: fc.oneof(fc.double({ min: 0, max: 100, noNaN: true }), fc.double()),
    cache_read: fc.double({ min: 0, max: 10, noNaN: true }),
    cache_write: fc.double({ min: 0, max: 10, noNaN: true }),
    aliases: fc.array(fc.oneof(fc.constantFrom(...MODELS), fc.string()), { maxLength: 4 }),
    provider: fc.constantFrom("anthropic", "openai", ""),
    long_context: fc.jsonValue(),
    cache_ttls: fc.oneof(fc.array(fc.constantFrom("5m", "30m", "in_memory", "30M")), fc.jsonValue()),
    min_cache_prefix_tokens: fc.oneof(fc.integer({ min: -10, max: 10_000 }), fc.double(), fc.jsonValue()),
    chars_per_token: fc.oneof(fc.double({ min: 0, max: 20 }), fc.double(), fc.jsonValue()),
    version: fc.oneof(fc.nat({ max: 5 }), fc.jsonValue()),
  },
  { requiredKeys: [] },
);

export const plausibleRow = fc.record(
  {
    input: fc.double({ min: 0, max: 100, noNaN: true }),
    output: fc.double({ min: 0, max: 200, noNaN: true }),
    cache_read: fc.double({ min: 0, max: 10, noNaN: true }),
    cache_write: fc.double({ min: 0, max: 20, noNaN: true }),
    cache_write_1h: fc.double({ min: 0, max: 30, noNaN: true }),
    provider: fc.constantFrom("anthropic", "openai", "google"),
    min_cache_prefix_tokens: fc.integer({ min: 1, max: 8_192 }),
    chars_per_token: fc.double({ min: 0.5, max: 16, noNaN: true }),
    aliases: fc.array(fc.stringMatching(/^[a-z0-9.-]{1,30}$/), { maxLength: 2 }),
  },
  { requiredKeys: ["input", "output"] },
);

// Outcome and session reports: ids shaped like the gate's (mostly unknown to
// the ledger), and fields plausible or wild.
export const decisionId = fc.oneof(
  fc.tuple(fc.nat({ max: 300 }), fc.stringMatching(/^[0-9a-f]{32}$/)).map(([shard, hex]) => `dec_${shard}_${hex}`),
  // Shaped as signed ids (docs/ledger.md § Decision ids): with no key their tags are never authentic.
  fc
    .tuple(fc.nat({ max: 300 }), fc.stringMatching(/^[0-9a-f]{32}_[0-9a-f]{8}_[0-9a-f]{16}$/))
    .map(([shard, rest]) => `dec_${shard}_${rest}`),
  fc.string({ maxLength: 60 }),
);
export const outcomeItem = fc.record(
  {
    decision_id: decisionId,
    turns_after: fc.oneof(fc.nat({ max: 50 }), fc.double(), fc.jsonValue()),
    recalled: fc.oneof(fc.boolean(), fc.jsonValue()),
    recalled_high: fc.oneof(fc.boolean(), fc.jsonValue()),
    cached_turns: fc.oneof(fc.nat({ max: 60 }), fc.integer()),
    context_tokens: fc.oneof(fc.nat({ max: 400_000 }), fc.double()),
    // A clearing decision's applied_edits (test/surface/fuzz-clearing.test.ts aims them at real ids).
    cleared_tool_uses: fc.oneof(fc.nat({ max: 20 }), fc.integer(), fc.double(), fc.jsonValue()),
    cleared_input_tokens: fc.oneof(fc.nat({ max: 400_000 }), fc.double(), fc.jsonValue()),
    extra: fc.jsonValue(),
  },
  { requiredKeys: ["decision_id", "turns_after", "recalled"] },
);
// Each provider's usage shape (docs/api/ledger.md#post-v1sessions), its counts plausible or wild.
export const tokenCount = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 5_000_000 }) },
  fc.double(),
  fc.constant(null),
  fc.jsonValue(),
);
export const providerUsage = fc.oneof(
  fc.record(
    {
      input_tokens: tokenCount,
      output_tokens: tokenCount,
      cache_read_input_tokens: tokenCount,
      cache_creation_input_tokens: tokenCount,
      cache_creation: fc.oneof(
        fc.record(
          { ephemeral_5m_input_tokens: tokenCount, ephemeral_1h_input_tokens: tokenCount },
          { requiredKeys: [] },
        ),
        fc.jsonValue(),
      ),
      iterations: fc.oneof(
        fc.array(
          fc.record({
            type: fc.constantFrom("compaction", "message"),
            input_tokens: tokenCount,
            output_tokens: tokenCount,
          }),
        ),
        fc.jsonValue(),
      ),
    },
    { requiredKeys: ["input_tokens", "output_tokens"] },
  ),
  fc.record(
    {
      prompt_tokens: tokenCount,
      completion_tokens: tokenCount,
      prompt_tokens_details: fc.record({ cached_tokens: tokenCount }),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      input_tokens: tokenCount,
      output_tokens: tokenCount,
      input_tokens_details: fc.record({ cached_tokens: tokenCount }),
      total_tokens: tokenCount,
    },
    { requiredKeys: ["input_tokens_details"] },
  ),
  fc.record(
    {
      promptTokenCount: tokenCount,
      cachedContentTokenCount: tokenCount,
      candidatesTokenCount: tokenCount,
      thoughtsTokenCount: tokenCount,
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      inputTokens: tokenCount,
      outputTokens: tokenCount,
      cacheReadInputTokens: tokenCount,
      cacheWriteInputTokens: tokenCount,
      cacheDetails: fc.array(fc.record({ ttl: fc.constantFrom("5m", "1h", "x"), inputTokens: tokenCount })),
    },
    { requiredKeys: [] },
  ),
  fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue(), { maxKeys: 4 }),
);
export const sessionItem = fc.record(
  {
    session_id: fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/), fc.string({ maxLength: 140 })),
    model_name: fc.oneof(fc.constantFrom(...MODELS), fc.string({ maxLength: 40 })),
    turns: fc.oneof(fc.nat({ max: 100 }), fc.double()),
    usage: fc.oneof(providerUsage, fc.array(providerUsage, { maxLength: 5 }), fc.jsonValue()),
    // The breaker's covariate: plausible sizes, and negatives, huge, non-finite-as-JSON and non-numbers.
    covariate: fc.oneof(fc.nat({ max: 5_000_000 }), fc.double(), fc.constantFrom(-1, 1e16, null, "12"), fc.jsonValue()),
    // Diagnosed cache misses: counts, and every way an object of two counts can be wrong.
    cache_misses: fc.oneof(
      fc.record({ after_gate_rewrite: fc.nat({ max: 5_000_000 }), other: fc.nat({ max: 5_000_000 }) }),
      fc.record({ after_gate_rewrite: fc.double(), other: fc.jsonValue() }, { requiredKeys: [] }),
      fc.jsonValue(),
    ),
  },
  { requiredKeys: ["session_id", "model_name", "turns", "usage"] },
);

// Merge patches of a row: fields changed, removed (null) or wild, and a key that must stay a key.
export const mergePatchBody = fc.dictionary(
  fc.constantFrom(
    "input",
    "output",
    "cache_read",
    "cache_write",
    "long_context",
    "aliases",
    "deprecated_at",
    "retires_at",
    "replaced_by",
    "__proto__",
    "x",
  ),
  fc.oneof(fc.constant(null), fc.double({ min: 0, max: 100, noNaN: true }), fc.jsonValue()),
  { maxKeys: 4 },
);
