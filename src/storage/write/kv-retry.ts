import { ApiError } from "../../http";

/** How a KV write is retried when KV answers 429 (one write per second per key). */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
}

/** Five attempts, 200 ms doubling with jitter: about 3 s at worst, inside any request's limits. */
export const KV_WRITE_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 200 };

/**
 * Runs a KV write, retrying with exponential backoff (and jitter) while KV
 * answers 429. Other errors are faults and go up as they are. If KV is still
 * busy after the last attempt, the caller gets 503 with Retry-After, never a
 * 500.
 *
 * @example
 * await withKvRetry(() => env.PRICING.put("pricing:gpt-5", text), "pricing:gpt-5");
 */
export async function withKvRetry<T>(
  write: () => Promise<T>,
  key: string,
  policy: RetryPolicy = KV_WRITE_RETRY,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!isKvRateLimit(error)) throw error;
      if (attempt >= policy.attempts) {
        throw new ApiError(
          "unavailable",
          `KV is refusing writes to ${key} (429 after ${attempt} attempts); retry shortly`,
          [],
          {
            "Retry-After": "1",
          },
        );
      }
      const delay = policy.baseDelayMs * 2 ** (attempt - 1);
      await new Promise((resolve) => setTimeout(resolve, delay / 2 + Math.random() * (delay / 2)));
    }
  }
}

/** Whether an error is KV's "too many writes to this key" (HTTP 429). */
export function isKvRateLimit(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /\b429\b|too many requests|rate limit/i.test(message);
}
