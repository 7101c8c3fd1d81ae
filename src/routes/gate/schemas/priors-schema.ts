/** The `priors` every gate answer carries (docs/design/learning.md §3.2), for the answer's schema. */
import { z } from "@hono/zod-openapi";

const AnswerPriorSchema = z.object({
  value: z.number().openapi({ description: "The value decided on (a learned horizon before the core truncates it)" }),
  source: z.enum(["request", "learned", "replay", "config", "explore", "unverified", "family", "pooled"]).openapi({
    description:
      "replay: from priors imported with POST /v1/admin/learning/import; explore (recall_probability, and horizon when learned): a draw from its posterior on an exploring session (Thompson sampling); unverified (recall_probability only): the tool's reporting is flagged and not acknowledged, so p is the config's or the replay level's, not learned; family (cache_aware): the horizon from the agent family's calibrated session lengths for a session told by call_index, subagent and agent (n: sessions), or p from the family's recalls of the tool for a tenant that learned none (n: outputs); pooled: the same from every family's sessions, the agent being unknown or unnamed",
  }),
  n: z
    .number()
    .int()
    .openapi({ description: "Observations at the most specific level learned from; 0 unless learned" }),
});

/** Where each prior of a decision came from (docs/learning.md). */
export const AnswerPriorsSchema = z
  .object({ horizon: AnswerPriorSchema, recall_probability: AnswerPriorSchema, cache_hit_rate: AnswerPriorSchema })
  .openapi("AnswerPriors", {
    description:
      "Each prior's value, source and observations. In seed mode cache_hit_rate is the q the ledger prices the realized net at.",
  });
