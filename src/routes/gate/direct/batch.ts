import type { z } from "@hono/zod-openapi";
import { enforceRateLimit } from "../../../auth";
import { fieldIssues } from "../../../gate";
import type { DecideContext } from "../../kernel";
import type { GateBatchRequestSchema } from "../schemas";
import { compiledGateRequest } from "./compiled";
import { decideItems, type GateAnswer } from "./decide";
import type { GateItem } from "./prepare";
import { gateRequestSchema } from "./zod";

/**
 * POST /v1/gate/batch's answer, once its envelope passed: each item is
 * validated on its own (an item's error is its entry, not the request's),
 * each further distinct model is charged to the tenant's rate limit, and
 * every item is decided in order.
 *
 * @example
 * await answerBatch({ items: [{ model_name: "gpt-5", output_tokens: 20_000 }, { model_name: "gpt-5" }] }, context)
 * // { decisions: [{ fire: true, ... }, { error: { code: "invalid_request", ... } }] }
 */
export async function answerBatch(
  body: z.output<typeof GateBatchRequestSchema>,
  context: DecideContext,
): Promise<{ decisions: GateAnswer[] }> {
  const { items, dry_run: dryRun } = body;
  // The compiled validator first; zod, built only then, for an item it refuses (./compiled.ts).
  const compiled = items.map(compiledGateRequest);
  const schema = compiled.includes(undefined) ? await gateRequestSchema() : undefined;
  const work = items.map((item, index): GateItem => {
    const parsed =
      compiled[index] !== undefined ? { success: true as const, data: compiled[index] } : schema!.safeParse(item);
    return parsed.success
      ? // The envelope's dry run is each item's: the recording path checks the item alone.
        { body: dryRun === true ? { ...parsed.data, dry_run: true } : parsed.data, path: ["items", index] }
      : { issues: fieldIssues(parsed.error, ["items", index]) };
  });
  // The request counted once already; each further distinct model is a
  // lookup that may reach KV, and counts too (docs/operations.md § Rate limits).
  const models = new Set(work.flatMap((item) => ("body" in item ? [item.body.model_name] : [])));
  await enforceRateLimit(context.env.GATE_RATE_LIMITER, context.tenant, models.size - 1);
  return { decisions: await decideItems(work, context) };
}
