/**
 * The zod schemas of a tenant's learned value (`learning:<tenant>`), the one
 * source of truth for it: the refresh, the admin view and the validator
 * generator read them. The gate's read (./learning.ts) checks a stored value
 * with the validators compiled from them (./checked.ts) and builds these only
 * for a value those refuse.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { describeIssues, SIZE_BANDS } from "../../gate";
import { learningKey, sumsInconsistency } from "../rules";
import { nameRecord } from "./name-record";

const count = z.number().nonnegative();

/** One level's sums, before their consistency check. */
export const LevelSumsShape = z.strictObject({
  p_n: count,
  p_r: count,
  h_n: count,
  h_sum: count,
  h_sumsq: count,
  q_n: count,
  q_cached: count,
  q_turns: count,
});

/** One level's sums over the learning window (src/learning/pool/pool.ts reads them), consistent as outcomes make them. */
export const LevelSumsSchema = LevelSumsShape.superRefine((s, ctx) => {
  const problem = sumsInconsistency(s);
  if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
});

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
      /** With a holdout: how many judged sessions reported a covariate, on which their bills were CUPED-adjusted. */
      adjusted: z.number().int().nonnegative().optional(),
      /** Without a holdout: the judged fired decisions priced by the seed's economics, at the cache state their outcome reported, or at the q they were priced with. */
      priced: z
        .strictObject({
          seed: z.number().nonnegative(),
          cache_reported: z.number().nonnegative(),
          cache_as_priced: z.number().nonnegative(),
        })
        .optional(),
    })
    .nullable(),
});

/**
 * A tool's sums, and optionally its sums per size band (./bands.ts), each checked by `sums`: the
 * stored replay level and the admin import (which is stricter on counts) share this layout.
 *
 * @example
 * replayToolSchema(LevelSumsSchema).parse({ sums: { p_n: 4, p_r: 1, h_n: 0, h_sum: 0, h_sumsq: 0, q_n: 0, q_cached: 0, q_turns: 0 } })
 */
export function replayToolSchema<S extends z.ZodType>(sums: S) {
  return z.strictObject({
    sums,
    bands: z
      .strictObject(
        Object.fromEntries(SIZE_BANDS.map((band) => [band, sums.optional()])) as Record<
          (typeof SIZE_BANDS)[number],
          z.ZodOptional<S>
        >,
      )
      .optional(),
  });
}

/** A tool's imported sums as the replay level stores them. */
export const ReplayToolSchema = replayToolSchema(LevelSumsSchema);

/** The replay level as a published value carries it: imported tools by name, with no prototype (./names.ts). */
export const ReplayToolsSchema = nameRecord(ReplayToolSchema);

/** The reporting flags of src/learning/refresh/trust.ts (docs/learning.md § Reporting that can be trusted). */
export const TRUST_FLAGS = ["outcomes_missing", "recalled_all", "arm_outcomes", "arm_bills", "arm_horizon"] as const;
export type TrustFlag = (typeof TRUST_FLAGS)[number];

/** A tool whose reporting raised flags at the refresh, and whether ops acknowledged them (then its p is learned again). */
export const ToolTrustSchema = z.strictObject({
  flags: z.array(z.strictObject({ flag: z.enum(TRUST_FLAGS), detail: z.string() })).min(1),
  acknowledged: z.boolean(),
});
export type ToolTrust = z.infer<typeof ToolTrustSchema>;

/** p per size band from the tenant's own outcomes (./bands.ts), before its consistency check. */
export const BandPShape = z.strictObject({ p_n: count, p_r: count });
const BandP = BandPShape.refine((s) => s.p_r <= s.p_n, "p_r exceeds p_n");
/** A tool's p per size band; absent in a value written before bands. */
export const ToolBandsSchema = z.strictObject(
  Object.fromEntries(SIZE_BANDS.map((band) => [band, BandP.optional()])) as Record<
    (typeof SIZE_BANDS)[number],
    z.ZodOptional<typeof BandP>
  >,
);

/** What one refresh published for one tenant. */
export const LearnedValueSchema = z.strictObject({
  version: z.literal(1),
  tenant: z.string(),
  computed_at: z.number(),
  window: z.strictObject({ from: z.number(), to: z.number() }),
  tenant_sums: LevelSumsSchema,
  // Keyed by tool and model names from requests: kept whole, with no prototype (src/storage/rules/names.ts).
  tools: nameRecord(
    z.strictObject({ sums: LevelSumsSchema, models: nameRecord(LevelSumsSchema), bands: ToolBandsSchema.optional() }),
  ),
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
