import { closestNames } from "../../../gate";
import { cachePolicy, readListing } from "../../../storage";
import { PRICING_PREFIX } from "../../../storage/rules";
import type { GateConfig } from "../../../storage/schemas";
import type { DecideContext } from "../../kernel";
import type { GateBatchItemError, GateDecisionBody } from "../schemas";
import type { ReadyItem } from "./prepare";

/**
 * Adds `suggestions` (the closest known model names) to each answer whose
 * model has no row at all; the reason stays the reference's, byte for byte.
 * The names come from the isolate's held listing of rows (the console's),
 * read once per request and only when such an answer is there, within the
 * KV budget: past it the suggestions are empty, never a slower answer.
 *
 * @example
 * await withSuggestions(ready, answers, config, context) // [{ reason: "no MODEL_PRICING row for 'gpt5'", suggestions: ["gpt-5"], ... }]
 */
export async function withSuggestions<A extends GateDecisionBody | GateBatchItemError>(
  ready: ReadonlyArray<ReadyItem | GateBatchItemError>,
  answers: A[],
  config: Readonly<GateConfig>,
  context: DecideContext,
): Promise<A[]> {
  const rowless = (index: number) => {
    const item = ready[index];
    const answer = answers[index];
    if (item === undefined || "error" in item || answer === undefined || "error" in answer) return false;
    const { lookup } = item.pricing.read;
    return (
      answer.reason_code === "unpriced" &&
      lookup.status === "unpriced" &&
      lookup.detail === undefined &&
      item.pricing.lifecycle === null
    );
  };
  if (!answers.some((_, index) => rowless(index))) return answers;
  const policy = cachePolicy(config);
  const listing = await readListing(context.env.PRICING, PRICING_PREFIX, policy, context.waitUntil, policy.budgetMs);
  const known = listing.kind === "miss" ? [] : [...listing.value.keys()];
  return answers.map((answer, index) =>
    rowless(index)
      ? { ...answer, suggestions: closestNames((answer as GateDecisionBody).inputs.model_name, known) }
      : answer,
  );
}
