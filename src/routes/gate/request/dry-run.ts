import { z } from "@hono/zod-openapi";
import { requiredOr } from "./fields";

/**
 * `dry_run` on POST /v1/gate, /v1/gate/batch and /v1/plan: the same answer,
 * recorded nowhere. The ops console asks this way, so viewing it never
 * writes into the ledger the savings report (and anything that learns from
 * decisions) reads.
 */
export const DryRunSchema = z
  .boolean({ error: requiredOr("must be true or false") })
  .optional()
  .openapi({
    description:
      "true: answer as usual but record nothing (no Analytics Engine data point, no ledger record, no holdout draw); the answer has no decision_id and says dry_run: true. Default: false.",
    example: true,
  });

/**
 * Whether an answer is recorded: the one switch every recording path (the
 * data point, the ledger record, the holdout draw, a learning observation)
 * checks.
 *
 * @example
 * isRecorded({ dry_run: true }) // false
 * isRecorded({}) // true
 */
export const isRecorded = (body: { dry_run?: boolean | undefined }): boolean => body.dry_run !== true;
