/**
 * Priors imported from replayed history (`replay-priors:<tenant>`, the
 * replay level of docs/learning.md), audited in
 * `history:replay-priors:<tenant>` with rollback like every other admin
 * write. The learning refresh copies them into the published value, so the
 * gate reads nothing more per request.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { replayPriorsKey, sumsInconsistency, TOOL_NAME_PATTERN } from "../rules";
import { LevelSumsShape, nameRecord, replayToolSchema, storedValue } from "../schemas";
import { restorable, writeAuditedValue } from "./audited";
import { readHistory } from "./history";

/** Most tools one import may carry: far beyond a real tenant's, and it bounds the value the gate holds. */
export const MAX_REPLAY_TOOLS = 1_000;

/**
 * Most outputs one imported level may count (p_n, p_r, h_n, q_n): ten
 * million, ten thousand sessions of a thousand tool results for one tool,
 * so no real import meets it, while the tenant's own outcomes can still
 * take over (docs/learning.md § The replay level's cap). Each turn sum is tied to these by
 * the learner's consistency rule (h_sum ≤ h_n × MAX_HORIZON …) and must be a
 * safe integer, so sums add exactly.
 */
export const MAX_REPLAY_OBSERVATIONS = 10_000_000;

const whole = "must be a whole number ≥ 0 (a count of outputs or turns)";
const observations = z
  .number()
  .int(whole)
  .nonnegative(whole)
  .max(MAX_REPLAY_OBSERVATIONS, `must be at most ${MAX_REPLAY_OBSERVATIONS}: no replay observes more outputs`);
const turns = z.number().int(`${whole}, at most ${Number.MAX_SAFE_INTEGER}`).nonnegative(whole);

/** One imported level's sums: counts a replay can make, consistent as the learner's are. */
const ImportedSumsSchema = LevelSumsShape.extend({
  p_n: observations,
  p_r: observations,
  h_n: observations,
  q_n: observations,
  h_sum: turns,
  h_sumsq: turns,
  q_cached: turns,
  q_turns: turns,
}).superRefine((s, ctx) => {
  const problem = sumsInconsistency(s);
  if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
});

/** A tool's imported sums, and optionally its sums per size band, as the import checks them. */
const ImportedToolSchema = replayToolSchema(ImportedSumsSchema);

const toolName = z.string().regex(TOOL_NAME_PATTERN, "must be a tool name: 1 to 64 of A-Z a-z 0-9 . _ : / -");

/**
 * Priors measured from history (`npm run replay -- --priors`), imported as
 * the replay level: between the config and the tenant's own outcomes.
 */
export const ReplayPriorsSchema = z
  .strictObject({
    version: z.literal(1),
    source: z.literal("replay"),
    tools: nameRecord(ImportedToolSchema, toolName).refine(
      (tools) => Object.keys(tools).length <= MAX_REPLAY_TOOLS,
      `must hold at most ${MAX_REPLAY_TOOLS} tools`,
    ),
  })
  .openapi("ReplayPriors", {
    description:
      "Per tool, LevelSums over replayed transcripts (p_n, p_r, h_n, h_sum, h_sumsq, q_n, q_cached, q_turns), and optionally per size band: lt2k, 2k-10k, ge10k.",
    example: {
      version: 1,
      source: "replay",
      tools: {
        read_file: {
          sums: { p_n: 40, p_r: 26, h_n: 120, h_sum: 600, h_sumsq: 3600, q_n: 0, q_cached: 0, q_turns: 0 },
          bands: { lt2k: { p_n: 10, p_r: 4, h_n: 30, h_sum: 150, h_sumsq: 900, q_n: 0, q_cached: 0, q_turns: 0 } },
        },
      },
    },
  });

export type ReplayPriors = z.infer<typeof ReplayPriorsSchema>;

/**
 * A tenant's imported priors, or null when there are none; a corrupt value
 * counts as none (logged), so the gate keeps deciding on the config and
 * the tenant's own outcomes.
 *
 * @example
 * await readReplayPriors(env.PRICING, "acme") // { version: 1, source: "replay", tools: { read_file: { sums } } } | null
 */
export async function readReplayPriors(kv: KVNamespace, tenant: string): Promise<ReplayPriors | null> {
  const text = await kv.get(replayPriorsKey(tenant));
  if (text === null) return null;
  const parsed = ReplayPriorsSchema.safeParse(storedValue(text));
  if (parsed.success) return parsed.data;
  console.warn(`offload-gate: ${replayPriorsKey(tenant)} is invalid; the replay level is left out`);
  return null;
}

/** A tenant's imported priors after a write, and the key's version. */
export interface ReplayPriorsView {
  tenant: string;
  tools: number;
  version: number;
  changed: boolean;
}

/**
 * Stores a tenant's imported priors whole (an import replaces the last one),
 * recorded in the key's history.
 *
 * @example
 * await putReplayPriors(env.PRICING, "acme", { version: 1, source: "replay", tools }, "ops-alice");
 */
export function putReplayPriors(
  kv: KVNamespace,
  tenant: string,
  priors: ReplayPriors,
  by: string,
): Promise<ReplayPriorsView> {
  return writePriors(kv, tenant, priors, by);
}

/**
 * Restores a tenant's imported priors as they stood at `version` (null: none
 * then), recorded as a change.
 *
 * @example
 * await rollbackReplayPriors(env.PRICING, "acme", 1, "ops-alice");
 */
export async function rollbackReplayPriors(
  kv: KVNamespace,
  tenant: string,
  version: number,
  by: string,
): Promise<ReplayPriorsView> {
  const key = replayPriorsKey(tenant);
  const wording = { name: key, noun: "set of replay priors", listRange: true, invalidTail: "" };
  return writePriors(
    kv,
    tenant,
    restorable(await readHistory(kv, key), version, ReplayPriorsSchema, wording),
    by,
    version,
  );
}

async function writePriors(
  kv: KVNamespace,
  tenant: string,
  after: ReplayPriors | null,
  by: string,
  rollbackTo?: number,
): Promise<ReplayPriorsView> {
  const key = replayPriorsKey(tenant);
  const outcome = await writeAuditedValue(kv, key, after, by, rollbackTo);
  return {
    tenant,
    tools: after === null ? 0 : Object.keys(after.tools).length,
    version: outcome.version,
    changed: outcome.changed,
  };
}
