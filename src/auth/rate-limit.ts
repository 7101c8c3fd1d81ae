import { ApiError } from "../http";

/**
 * The window of the `GATE_RATE_LIMITER` binding, as `simple.period` in
 * wrangler.toml sets it (a test checks they agree): Retry-After says it.
 */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

let warnedUnbound = false;

/**
 * Counts `count` requests (one by default) against `tenant`'s limit and
 * throws 429 (with Retry-After) past it. The limiter failing is not the caller's fault: the
 * request goes through, and the failure is logged.
 *
 * @example
 * await enforceRateLimit(c.env.GATE_RATE_LIMITER, "agents-prod");
 * await enforceRateLimit(c.env.GATE_RATE_LIMITER, "agents-prod", 3); // a batch's other distinct models
 */
export async function enforceRateLimit(limiter: RateLimit | undefined, tenant: string, count = 1): Promise<void> {
  for (let charged = 0; charged < count; charged++) await chargeOnce(limiter, tenant);
}

async function chargeOnce(limiter: RateLimit | undefined, tenant: string): Promise<void> {
  if (limiter === undefined) {
    if (!warnedUnbound) console.warn("offload-gate: no GATE_RATE_LIMITER binding; the gate is not rate limited");
    warnedUnbound = true;
    return;
  }
  let outcome: RateLimitOutcome;
  try {
    outcome = await limiter.limit({ key: `gate:${tenant}` });
  } catch (error) {
    console.warn(
      "offload-gate: rate limiter failed; letting the request through",
      error instanceof Error ? error.message : error,
    );
    return;
  }
  if (!outcome.success) {
    throw new ApiError(
      "rate_limited",
      `tenant ${tenant} is over its rate limit; retry after ${RATE_LIMIT_PERIOD_SECONDS} s`,
      [],
      { "Retry-After": String(RATE_LIMIT_PERIOD_SECONDS) },
    );
  }
}
