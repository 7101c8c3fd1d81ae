/**
 * Ops acknowledgements of a tenant's flagged reporting (`learning-acks:<tenant>`:
 * {tool: true}; a tool left out is not acknowledged), audited in
 * `history:learning-acks:<tenant>` with rollback like every other admin write.
 * A flagged tool's p is not learned until its flags are acknowledged
 * (docs/learning.md § Reporting that can be trusted).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { dict, learningAcksKey, TOOL_NAME_PATTERN } from "../rules";
import { nameRecord, storedValue } from "../schemas";
import { restorable, writeAuditedValue } from "./audited";
import { readHistory } from "./history";

/** What `learning-acks:<tenant>` holds. */
export const LearningAcksSchema = nameRecord(z.literal(true), z.string().regex(TOOL_NAME_PATTERN));
export type LearningAcks = z.infer<typeof LearningAcksSchema>;

/**
 * A tenant's acknowledgements; a corrupt value counts as none (logged), so a flagged tool stays unlearned.
 *
 * @example
 * await readAcks(env.PRICING, "acme") // { read_file: true }
 */
export async function readAcks(kv: KVNamespace, tenant: string): Promise<LearningAcks> {
  const text = await kv.get(learningAcksKey(tenant));
  if (text === null) return {};
  const parsed = LearningAcksSchema.safeParse(storedValue(text));
  if (parsed.success) return parsed.data;
  console.warn(`offload-gate: ${learningAcksKey(tenant)} is invalid; no reporting flag counts as acknowledged`);
  return {};
}

/** A tenant's acknowledgements after a write, and the key's version. */
export interface AcksView {
  tenant: string;
  acks: LearningAcks;
  version: number;
  changed: boolean;
}

/**
 * Acknowledges one tool's flagged reporting, or withdraws the acknowledgement, recorded in the key's history.
 *
 * @example
 * await putAck(env.PRICING, "acme", "read_file", true, "ops-alice");
 */
export async function putAck(
  kv: KVNamespace,
  tenant: string,
  tool: string,
  acknowledged: boolean,
  by: string,
): Promise<AcksView> {
  const current = await readAcks(kv, tenant);
  const next: LearningAcks = dict(Object.entries(current).filter(([name]) => name !== tool));
  if (acknowledged) next[tool] = true;
  return writeAcks(kv, tenant, Object.keys(next).length === 0 ? null : next, by);
}

/**
 * Restores a tenant's acknowledgements as they stood at `version`, recorded as a change.
 *
 * @example
 * await rollbackAcks(env.PRICING, "acme", 1, "ops-alice");
 */
export async function rollbackAcks(kv: KVNamespace, tenant: string, version: number, by: string): Promise<AcksView> {
  const history = await readHistory(kv, learningAcksKey(tenant));
  const wording = { name: learningAcksKey(tenant), noun: "set of acknowledgements", listRange: true, invalidTail: "" };
  return writeAcks(kv, tenant, restorable(history, version, LearningAcksSchema, wording), by, version);
}

async function writeAcks(
  kv: KVNamespace,
  tenant: string,
  after: LearningAcks | null,
  by: string,
  rollbackTo?: number,
): Promise<AcksView> {
  const outcome = await writeAuditedValue(kv, learningAcksKey(tenant), after, by, rollbackTo);
  return { tenant, acks: after ?? {}, version: outcome.version, changed: outcome.changed };
}
