/**
 * @module plan-cadence
 *
 * When an offload session asks for a clearing plan. Every plan that stubs
 * rewrites the cached history after its first stub, so clearing many medium
 * outputs one plan at a time pays that rewrite again and again (a rolling
 * mask that moves every call costs +59% on cached transcripts; moving it
 * every 10 calls, −0.1%). So: at most once every K calls, or sooner once the
 * stubbable tokens that arrived since the last plan reach what the last paying
 * plan stubbed, the batch the plan itself reported as paying. Outputs a plan
 * declined are weighed again at the next K calls, not on every call: counting
 * them towards the batch would ask a plan on every call once one had paid.
 * clients/constants.json's plan_cadence_vectors pin its answers, here, in the
 * Python client and in replay's gate_plan.
 */
import { DEFAULT_PLAN_EVERY } from "./constants.js";

export { DEFAULT_PLAN_EVERY };

/**
 * One session's plan cadence.
 *
 * @example
 * const cadence = new PlanCadence(10);
 * cadence.due(40_000) // false: no call yet, and no plan has paid
 * for (let i = 0; i < 10; i++) cadence.call();
 * cadence.due(40_000) // true
 * cadence.asked(30_000); // the plan stubbed 30,000 of the 40,000: the 10,000 it declined wait for the next K
 * cadence.due(40_000) // true: 30,000 tokens arrived since, the paying batch
 */
export class PlanCadence {
  #calls = 0;
  #paying = Infinity;
  // The stubbable tokens when a plan was last due, and those that plan declined.
  #seen = 0;
  #declined = 0;

  constructor(readonly every: number = DEFAULT_PLAN_EVERY) {}

  /** One model call. */
  call(): void {
    this.#calls += 1;
  }

  /** Whether to ask now, with this many tokens of outputs held in full that a plan could stub. */
  due(stubbableTokens: number): boolean {
    const fresh = stubbableTokens - this.#declined;
    const due = stubbableTokens > 0 && (this.#calls >= this.every || fresh >= this.#paying);
    if (due) this.#seen = stubbableTokens;
    return due;
  }

  /** A plan was asked and stubbed this many tokens (0: it kept everything). */
  asked(stubbedTokens: number): void {
    this.#calls = 0;
    this.#declined = Math.max(0, this.#seen - stubbedTokens);
    if (stubbedTokens > 0) this.#paying = stubbedTokens;
  }
}
