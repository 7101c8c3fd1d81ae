/**
 * @module test/support/admin-pricing
 *
 * What the admin pricing route's tests share: a gpt-5 row and a gate
 * request for it, local KV reset to Opus's row before each test, and the PUT.
 *
 * @example
 * usePricingAdmin();
 * expect((await putPricing("gpt-5", GPT5)).status).toBe(200);
 */
import { afterEach, beforeEach, vi } from "vitest";
import { adminCall } from "./admin-helpers";
import { EXAMPLE_A, OPUS, putRow, resetState } from "./helpers";

/** A gpt-5 row as an admin writes it. */
export const GPT5 = { input: 1.25, output: 10, cache_read: 0.125, provider: "openai" };
/** A gate request that prices as gpt-5 and fires. */
export const BIG = { ...EXAMPLE_A, model_name: "gpt-5" };

/**
 * Registers the file's hooks: local KV reset to Opus's row before each test, spies restored after.
 *
 * @example
 * usePricingAdmin();
 */
export function usePricingAdmin(): void {
  beforeEach(async () => {
    await resetState();
    await putRow("claude-opus-4-6", OPUS);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
}

/**
 * PUT /v1/admin/pricing/:model with Alice's token.
 *
 * @example
 * await putPricing("gpt-5", GPT5);
 */
export const putPricing = (model: string, row: unknown) => adminCall("PUT", `/v1/admin/pricing/${model}`, row);
