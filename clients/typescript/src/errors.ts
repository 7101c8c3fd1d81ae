/** One problem with one field, as the gate names it (`path` is dotted: `items.3.horizon`). */
export interface Issue {
  path: string;
  message: string;
}

/** The reason codes the client answers with when the gate did not decide. */
export const FALLBACK_REASON_CODES = [
  "gate_unreachable",
  "gate_unavailable",
  "gate_rate_limited",
  "gate_unauthorized",
  "gate_invalid_request",
  "gate_bad_answer",
] as const;
export type FallbackReasonCode = (typeof FALLBACK_REASON_CODES)[number];

/**
 * Why the gate did not answer a call; `status` is the HTTP status when there was one.
 *
 * @example
 * try { await gate.decide(request, { raiseOnError: true }); } catch (e) { if (e instanceof GateError) log(e.reasonCode); }
 */
export class GateError extends Error {
  override readonly name = "GateError";
  constructor(
    readonly reasonCode: FallbackReasonCode,
    message: string,
    readonly status: number | null = null,
    readonly issues: Issue[] = [],
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/**
 * The fallback reason code for an HTTP error status.
 *
 * @example
 * reasonCodeFor(503) // "gate_unavailable"
 */
export function reasonCodeFor(status: number): FallbackReasonCode {
  if (status === 429) return "gate_rate_limited";
  if (status === 401 || status === 403) return "gate_unauthorized";
  if (status >= 500) return "gate_unavailable";
  return "gate_invalid_request";
}
