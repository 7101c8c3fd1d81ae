/**
 * @module e2e/console-support
 *
 * What the console's browser tests share: the calculator's form, the seed
 * formula to check its numbers independently, and calls to the local gate
 * the tests make themselves.
 *
 * @example
 * await fillCalculator({ "Output tokens": "40000" });
 * expect(seedNet(1.25, 10, 8, 40000, 0.25)).toBeGreaterThan(0);
 */
import { expect } from "vitest";
import { page } from "./browser";
import { BASE_URL } from "./server";

/** The calculator's form. */
export const calc = () => page.locator("#calc-form");

/** The seed formula the gate's core uses, for checking the chart's numbers independently. */
export function seedNet(input: number, output: number, horizon: number, tokens: number, p: number): number {
  const inRate = input / 1e6;
  const outRate = output / 1e6;
  return tokens * inRate * horizon - (200 * inRate * horizon + p * (2000 * inRate + 500 * outRate));
}

/** Fills calculator fields by their exact labels; the others keep what they hold. */
export async function fillCalculator(fields: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(fields)) await calc().getByLabel(label, { exact: true }).fill(value);
}

/** POST /v1/gate from the test itself, for the numbers the page must show. */
export async function askGate(body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await fetch(`${BASE_URL}/v1/gate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

/** How many decisions the ledger holds for the default tenant, as GET /v1/savings counts them. */
export async function ledgerDecisions(): Promise<number> {
  const res = await fetch(`${BASE_URL}/v1/savings`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { decisions: number }).decisions;
}
