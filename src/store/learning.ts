/**
 * The gate's read of a tenant's learned value (`learning:<tenant>`), served
 * from the isolate's RefreshingCache like pricing rows: no KV read per
 * request while it is held. A missing, corrupt or unreachable value is
 * `null`: the config's priors, never a failed or slower decision.
 */
import { z } from "@hono/zod-openapi";
import { describeIssues } from "../gate/issues";
import { SIZE_BANDS } from "./bands";
import { RefreshingCache } from "./cache";
import { MAX_HORIZON, type GateConfig } from "./config";
import { learningKey } from "./keys";
import { nameRecord } from "./name-record";
import { cachePolicy } from "./read";

const count = z.number().nonnegative();

const LevelSumsShape = z.strictObject({
  p_n: count,
  p_r: count,
  h_n: count,
  h_sum: count,
  h_sumsq: count,
  q_n: count,
  q_cached: count,
  q_turns: count,
});

/** One level's sums over the learning window (src/learning/pool.ts reads them), consistent as outcomes make them. */
export const LevelSumsSchema = LevelSumsShape.superRefine((s, ctx) => {
  const problem = sumsInconsistency(s);
  if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
});

/**
 * Why a level's sums could not have come from outcomes a request may send,
 * or null. Every turns_after is a whole number in [0, MAX_HORIZON], so
 * h_sum ≤ h_sumsq ≤ MAX_HORIZON · h_sum (x ≤ x² ≤ M·x for such x) and
 * h_sum ≤ h_n · MAX_HORIZON; p and q count subsets of h's outcomes. Each
 * bound survives adding shards' sums, so a merged value that breaks one was
 * written by something other than the refresh.
 *
 * @example
 * sumsInconsistency({ p_n: 1, p_r: 1, h_n: 1, h_sum: 1e300, h_sumsq: 1e300, q_n: 0, q_cached: 0, q_turns: 0 }) // "h_sum exceeds h_n × 1000000"
 */
export function sumsInconsistency(s: z.infer<typeof LevelSumsShape>): string | null {
  if (s.p_r > s.p_n) return "p_r exceeds p_n";
  if (s.q_cached > s.q_turns) return "q_cached exceeds q_turns";
  if (s.p_n > s.h_n || s.q_n > s.h_n) return "p_n or q_n exceeds h_n";
  if (s.h_sum > s.h_n * MAX_HORIZON) return `h_sum exceeds h_n × ${MAX_HORIZON}`;
  if (s.h_sumsq < s.h_sum || s.h_sumsq > s.h_sum * MAX_HORIZON) return "h_sumsq is inconsistent with h_sum";
  if (s.q_turns > s.h_sum) return "q_turns exceeds h_sum";
  return null;
}

/** A breaker's state as the refresh judged it, with the evidence that moved it. */
export const BreakerStateSchema = z.strictObject({
  state: z.enum(["open", "closed"]),
  /** "auto" is the rule's; "open"/"closed" are forced by ops. */
  mode: z.enum(["auto", "open", "closed"]),
  rule: z.enum(["holdout", "realized_net"]),
  /** When the state last changed (ms), null when it never has. */
  since: z.number().nullable(),
  /** While open: the sessions (held out, with a holdout) whose evidence opened it; closing needs as many. */
  opened_with: z.number().nonnegative().optional(),
  evidence: z
    .strictObject({
      sessions: z.number(),
      treated: z.number(),
      held_out: z.number(),
      estimate: z.number().nullable(),
      interval: z.tuple([z.number(), z.number()]).nullable(),
      verdict: z.enum(["saving", "losing", "inconclusive"]),
    })
    .nullable(),
});

/** The reporting flags of src/learning/trust.ts (docs/learning.md § Reporting that can be trusted). */
export const TRUST_FLAGS = ["outcomes_missing", "recalled_all", "arm_outcomes", "arm_bills", "arm_horizon"] as const;
export type TrustFlag = (typeof TRUST_FLAGS)[number];

/** A tool whose reporting raised flags at the refresh, and whether ops acknowledged them (then its p is learned again). */
export const ToolTrustSchema = z.strictObject({
  flags: z.array(z.strictObject({ flag: z.enum(TRUST_FLAGS), detail: z.string() })).min(1),
  acknowledged: z.boolean(),
});
export type ToolTrust = z.infer<typeof ToolTrustSchema>;

/** A tool's imported sums, and optionally its sums per size band (./bands.ts). */
export const ReplayToolSchema = z.strictObject({
  sums: LevelSumsSchema,
  bands: z
    .strictObject(
      Object.fromEntries(SIZE_BANDS.map((band) => [band, LevelSumsSchema.optional()])) as Record<
        (typeof SIZE_BANDS)[number],
        z.ZodOptional<typeof LevelSumsSchema>
      >,
    )
    .optional(),
});

/** The replay level as a published value carries it: imported tools by name, with no prototype (./names.ts). */
export const ReplayToolsSchema = nameRecord(ReplayToolSchema);

/** p per size band from the tenant's own outcomes (./bands.ts); absent in a value written before bands. */
const BandP = z.strictObject({ p_n: count, p_r: count }).refine((s) => s.p_r <= s.p_n, "p_r exceeds p_n");
const BandPSchema = z
  .strictObject(
    Object.fromEntries(SIZE_BANDS.map((band) => [band, BandP.optional()])) as Record<
      (typeof SIZE_BANDS)[number],
      z.ZodOptional<typeof BandP>
    >,
  )
  .optional();

/** What one refresh published for one tenant. */
export const LearnedValueSchema = z.strictObject({
  version: z.literal(1),
  tenant: z.string(),
  computed_at: z.number(),
  window: z.strictObject({ from: z.number(), to: z.number() }),
  tenant_sums: LevelSumsSchema,
  // Keyed by tool and model names from requests: kept whole, with no prototype (src/store/names.ts).
  tools: nameRecord(z.strictObject({ sums: LevelSumsSchema, models: nameRecord(LevelSumsSchema), bands: BandPSchema })),
  breakers: nameRecord(BreakerStateSchema),
  /** The imported replay level (`replay-priors:<tenant>`) as the refresh found it; absent when none. */
  replay: ReplayToolsSchema.optional(),
  /** The tools whose reporting raised flags (absent when none did): an unacknowledged one's p is not learned. */
  trust: nameRecord(ToolTrustSchema).optional(),
});

export type LearnedValue = z.infer<typeof LearnedValueSchema>;
export type ReplayTools = z.infer<typeof ReplayToolsSchema>;
export type BreakerState = z.infer<typeof BreakerStateSchema>;

/**
 * Parses a stored learned value: text in, the value or null (with why) out.
 *
 * @example
 * parseLearned("acme", null) // { value: null, problem: null }
 */
export function parseLearned(
  tenant: string,
  text: string | null,
): { value: Readonly<LearnedValue> | null; problem: string | null } {
  if (text === null) return { value: null, problem: null };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { value: null, problem: `${learningKey(tenant)} is not valid JSON` };
  }
  const parsed = LearnedValueSchema.safeParse(json);
  if (!parsed.success)
    return { value: null, problem: `${learningKey(tenant)} is invalid: ${describeIssues(parsed.error)}` };
  if (parsed.data.tenant !== tenant)
    return { value: null, problem: `${learningKey(tenant)} holds another tenant's value` };
  return { value: Object.freeze(parsed.data), problem: null };
}

// One value per tenant; "nothing learned" is as worth holding as a value.
const learned = new RefreshingCache<Readonly<LearnedValue> | null>({
  maxEntries: 1_024,
  isNegative: (value) => value === null,
});

/**
 * A tenant's learned value, from the isolate when it holds one: null when
 * there is none, it cannot be parsed, or KV does not answer within the
 * budget (then the gate decides on the config's priors).
 *
 * @example
 * const value = await readLearned(env.PRICING, "acme", config, ctx.waitUntil.bind(ctx));
 */
export async function readLearned(
  kv: KVNamespace,
  tenant: string,
  config: Readonly<GateConfig>,
  waitUntil: (promise: Promise<unknown>) => void,
): Promise<Readonly<LearnedValue> | null> {
  const read = await learned.read(learningKey(tenant), () => loadLearned(kv, tenant), cachePolicy(config), waitUntil);
  return read.kind === "miss" ? null : read.value;
}

/** Serves a value this isolate just published, without waiting for KV to propagate it. */
export function rememberLearned(tenant: string, value: Readonly<LearnedValue> | null): void {
  learned.set(learningKey(tenant), value);
}

/** Forgets every held learned value (tests). */
export function forgetLearned(): void {
  learned.clear();
}

/** Cache counters of this isolate's learned values (the no-extra-read test reads them). */
export function learnedCacheStats() {
  return { ...learned.stats };
}

async function loadLearned(kv: KVNamespace, tenant: string): Promise<Readonly<LearnedValue> | null> {
  const { value, problem } = parseLearned(tenant, await kv.get(learningKey(tenant)));
  // Logged once per load (once per TTL per isolate), not once per request.
  if (problem !== null) console.warn(`offload-gate: ${problem}; deciding on the config's priors`);
  return value;
}
