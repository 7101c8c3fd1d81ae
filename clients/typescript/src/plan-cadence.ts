/**
 * @module plan-cadence
 *
 * When an offload session asks for a clearing plan. Every plan that stubs
 * rewrites the cached history after its first stub, so clearing many medium
 * outputs one plan at a time pays that rewrite again and again (a rolling
 * mask that moves every call costs +59% on cached transcripts; moving it
 * every 10 calls, −0.1%). So: at most once every K calls, or sooner once the
 * tokens that could be stubbed reach what the last paying plan stubbed, the
 * batch the plan itself reported as paying.
 */

/** K: calls between two plans, unless the stubbable tokens reach the paying batch sooner. */
export const DEFAULT_PLAN_EVERY = 10;

/**
 * One session's plan cadence.
 *
 * @example
 * const cadence = new PlanCadence(10);
 * cadence.due(40_000) // false: no call yet, and no plan has paid
 * for (let i = 0; i < 10; i++) cadence.call();
 * cadence.due(40_000) // true
 * cadence.asked(30_000); // the plan stubbed 30,000 tokens: from now on 30,000 stubbable tokens are due at once
 */
export class PlanCadence {
  #calls = 0;
  #paying = Infinity;

  constructor(readonly every: number = DEFAULT_PLAN_EVERY) {}

  /** One model call. */
  call(): void {
    this.#calls += 1;
  }

  /** Whether to ask now, with this many tokens of outputs held in full that a plan could stub. */
  due(stubbableTokens: number): boolean {
    return stubbableTokens > 0 && (this.#calls >= this.every || stubbableTokens >= this.#paying);
  }

  /** A plan was asked and stubbed this many tokens (0: it kept everything). */
  asked(stubbedTokens: number): void {
    this.#calls = 0;
    if (stubbedTokens > 0) this.#paying = stubbedTokens;
  }
}
