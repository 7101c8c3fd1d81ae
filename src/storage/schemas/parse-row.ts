/**
 * A stored pricing row parsed by its zod schema: the admin writes, the price
 * sync and the console read rows through it, and the gate's read
 * (./read.ts parseStoredRow) only for a row the compiled check refuses, so
 * that zod words why.
 *
 * @module
 */
import { describeIssues, type ResolvedFrom } from "../../gate";
import { MAX_ROW_BYTES, pricingKey } from "../rules";
import { type PricingRow, PricingRowSchema } from "./schema";

/** A stored row read: the row, no row, or why it is refused. */
export type RowOutcome =
  | { kind: "row"; row: PricingRow; canonical: string; resolved_from?: ResolvedFrom }
  | { kind: "absent"; ambiguous?: readonly string[]; written?: true }
  | { kind: "invalid"; detail: string };

/**
 * Parses a stored row: plain text in, tagged result out.
 *
 * @example
 * parseRow("gpt-5", '{"input":1.25,"output":10}') // { kind: "row", canonical: "gpt-5", row: {...} }
 */
export function parseRow(canonical: string, text: string): RowOutcome {
  if (text.length > MAX_ROW_BYTES) {
    return {
      kind: "invalid",
      detail: `${pricingKey(canonical)} is oversized (${text.length} bytes > ${MAX_ROW_BYTES})`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: "invalid", detail: `${pricingKey(canonical)} is not valid JSON` };
  }
  const parsed = PricingRowSchema.safeParse(json);
  if (!parsed.success) {
    return { kind: "invalid", detail: `${pricingKey(canonical)} is invalid: ${describeIssues(parsed.error)}` };
  }
  return { kind: "row", row: parsed.data, canonical };
}
