import { z } from "@hono/zod-openapi";
import { requiredOr } from "./fields";

/**
 * `dry_run` on POST /v1/gate, /v1/gate/batch, /v1/plan and /v1/context-management: the same answer,
 * recorded nowhere. The ops console asks this way, so viewing it never
 * writes into the ledger the savings report (and anything that learns from
 * decisions) reads. The switch the recording paths read, free of zod, is
 * ../recording.ts's isRecorded.
 */
export const DryRunSchema = z
  .boolean({ error: requiredOr("must be true or false") })
  .optional()
  .openapi({
    description:
      "true: answer as usual but record nothing (no Analytics Engine data point, no ledger record, no holdout draw); the answer has no decision_id and says dry_run: true. Default: false.",
    example: true,
  });
