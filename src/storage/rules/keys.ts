/**
 * Every KV key the project reads or writes, in one place: the worker, the
 * ops CLI, local seeding, the benchmark and the tests all build keys here.
 * docs/storage.md documents the same layout.
 */

/** `pricing:<model>`: a canonical model's pricing row, as JSON. */
export const PRICING_PREFIX = "pricing:";
/** `alias:<name>`: an alias; its value is the canonical model name as plain text. */
export const ALIAS_PREFIX = "alias:";
/** `config:<name>`: settings ops keep in KV. */
export const CONFIG_PREFIX = "config:";
/** `history:<key>`: the audit history of another key. */
export const HISTORY_PREFIX = "history:";
/** `pending:<model>`: a price change the scheduled sync proposes, until an admin approves or rejects it. */
export const PENDING_PREFIX = "pending:";

/** KV key of a model's canonical pricing row. */
export const pricingKey = (model: string) => `${PRICING_PREFIX}${model}`;
/** KV key of an alias; its value is the canonical model name as plain text. */
export const aliasKey = (alias: string) => `${ALIAS_PREFIX}${alias}`;
/** KV key of the audit history of one KV key (`pricing:<model>`, `config:gate`). */
export const historyKey = (subject: string) => `${HISTORY_PREFIX}${subject}`;
/** KV key of one model's pending (proposed) price change. */
export const pendingKey = (model: string) => `${PENDING_PREFIX}${model}`;
/** KV key of the gate config. */
export const GATE_CONFIG_KEY = `${CONFIG_PREFIX}gate`;

/**
 * The keys and values that hold a set of rows: each row under its model,
 * each alias pointing to its model. Local seeding, the benchmark and the
 * browser test load KV with it.
 *
 * @example
 * rowEntries({ "gpt-5": { input: 1.25, output: 10, aliases: ["gpt-5-2025-08-07"] } })
 * // [{ key: "pricing:gpt-5", value: '{"input":1.25,...}' }, { key: "alias:gpt-5-2025-08-07", value: "gpt-5" }]
 */
export function rowEntries(
  models: Readonly<Record<string, { aliases?: readonly string[] }>>,
): { key: string; value: string }[] {
  const entries: { key: string; value: string }[] = [];
  for (const [model, row] of Object.entries(models)) {
    entries.push({ key: pricingKey(model), value: JSON.stringify(row) });
    for (const alias of row.aliases ?? []) entries.push({ key: aliasKey(alias), value: model });
  }
  return entries;
}

/** `learning:<tenant>`: what a tenant's ledger taught the gate (its sums per tool and model, its breakers), as one JSON value. */
export const LEARNING_PREFIX = "learning:";
/** KV key of a tenant's learned value, published by the learning refresh (src/learning/refresh/refresh.ts). */
export const learningKey = (tenant: string) => `${LEARNING_PREFIX}${tenant}`;
/** `breakers:<tenant>`: the ops overrides of a tenant's breakers ({tool: "open" | "closed"}), audited in its history. */
export const BREAKERS_PREFIX = "breakers:";
/** KV key of a tenant's breaker overrides. */
export const breakersKey = (tenant: string) => `${BREAKERS_PREFIX}${tenant}`;
/** `learning-acks:<tenant>`: the tools whose flagged reporting ops acknowledged ({tool: true}), audited in its history. */
export const LEARNING_ACKS_PREFIX = "learning-acks:";
/** KV key of a tenant's acknowledged reporting flags. */
export const learningAcksKey = (tenant: string) => `${LEARNING_ACKS_PREFIX}${tenant}`;
/** `ledger-shard:<tenant>:<shard>`: that a tenant's ledger shard was ever written ("1"); reads ask only those shards. */
export const LEDGER_SHARD_PREFIX = "ledger-shard:";
/** KV key that marks one of a tenant's ledger shards as written. */
export const ledgerShardKey = (tenant: string, shard: number) => `${LEDGER_SHARD_PREFIX}${tenant}:${shard}`;
/** `replay-priors:<tenant>`: priors imported from replayed history (the replay level), audited in its history. */
export const REPLAY_PRIORS_PREFIX = "replay-priors:";
/** KV key of a tenant's imported replay priors. */
export const replayPriorsKey = (tenant: string) => `${REPLAY_PRIORS_PREFIX}${tenant}`;
