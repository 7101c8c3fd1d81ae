/**
 * @module scripts/pricing/cli-io
 *
 * What every command of the ops CLI shares: its flags, its exit-code error,
 * the surroundings it runs in (injectable for tests), and reading the seed,
 * the target and KV.
 *
 * @example
 * const seed = loadSeed({ seed: "pricing.seed.json" }, nodeIo());
 */
import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { createInterface } from "node:readline/promises";
import type { parseArgs } from "node:util";
import { ALIAS_PREFIX, historyKey, PRICING_PREFIX } from "../../src/storage/rules/keys";
import { definedEnvironments, describeTarget, openKv, type Kv, type Target } from "./kv";
import { validateSeed, type KvSnapshot } from "./seed";

/** Exit codes: 0 ok (or no difference), 1 invalid (or different), 2 usage or failure. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 2,
  ) {
    super(message);
  }
}

/** What the CLI needs from its surroundings: injectable for tests. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  interactive: boolean;
  ask: (question: string) => Promise<string>;
  now: () => Date;
}

export const options = {
  local: { type: "boolean" },
  remote: { type: "boolean" },
  env: { type: "string" },
  "persist-to": { type: "string" },
  config: { type: "string" },
  seed: { type: "string" },
  out: { type: "string" },
  models: { type: "string" },
  provider: { type: "string" },
  source: { type: "string" },
  commit: { type: "string" },
  into: { type: "string" },
  "only-covered": { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  prune: { type: "boolean" },
  "missing-only": { type: "boolean" },
  strict: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export type Flags = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>["values"];

export function readTarget(flags: Flags, io: Io): Target {
  if (flags.local === true && flags.remote === true) throw new CliError("give --local or --remote, not both");
  const target: Target = { where: flags.remote === true ? "remote" : "local" };
  if (flags.env !== undefined || target.where === "remote") checkEnv(flags);
  if (flags.env !== undefined) target.env = flags.env;
  if (flags["persist-to"] !== undefined) {
    if (target.where === "remote") throw new CliError("--persist-to is for --local");
    target.persistTo = flags["persist-to"];
  }
  if (flags.config !== undefined) target.config = flags.config;
  if (flags.local !== true && flags.remote !== true)
    io.err(`pricing: no target given; reading ${describeTarget(target)} (--remote for the deployed namespace)`);
  return target;
}

/**
 * Wrangler itself would warn about an unknown `--env` and carry on with the
 * top level: for a write that is the wrong namespace under the right name.
 * And the top level is local development, so a remote target names its env.
 */
export function checkEnv(flags: Flags): void {
  const config = flags.config ?? "wrangler.toml";
  const defined = definedEnvironments(flags.config);
  const names = defined.length === 0 ? "none" : defined.join(", ");
  if (flags.env !== undefined && !defined.includes(flags.env)) {
    throw new CliError(`--env ${flags.env} is not an environment of ${config} (it defines: ${names})`);
  }
  if (flags.env === undefined && defined.length > 0) {
    throw new CliError(`--remote needs --env (${names}): the top level of ${config} is local development`);
  }
}

export function loadSeed(flags: Flags, io: Io) {
  const file = flags.seed ?? "pricing.seed.json";
  const verdict = validateSeed(readJson(file), io.now());
  if (verdict.seed === null) {
    for (const error of verdict.errors) io.err(`error   ${error}`);
    throw new CliError(`${file} is invalid; run: npm run pricing -- validate ${file}`, 1);
  }
  return verdict.seed;
}

/** Opens the target for one piece of work and always lets go of it. */
export async function using<T>(target: Target, work: (kv: Kv) => Promise<T>): Promise<T> {
  const kv = await openKv(target);
  try {
    return await work(kv);
  } finally {
    await kv.close();
  }
}

export async function read(kv: Kv): Promise<{ snapshot: KvSnapshot; histories: Map<string, string | null> }> {
  const rowHistory = historyKey(PRICING_PREFIX);
  const names = (await kv.list()).filter((name) =>
    [PRICING_PREFIX, ALIAS_PREFIX, rowHistory].some((prefix) => name.startsWith(prefix)),
  );
  const values = await kv.getMany(names);
  const snapshot: KvSnapshot = { rows: new Map(), aliases: new Map() };
  const histories = new Map<string, string | null>();
  for (const [name, value] of values) {
    if (value === null) continue;
    if (name.startsWith(PRICING_PREFIX)) snapshot.rows.set(name.slice(PRICING_PREFIX.length), value);
    else if (name.startsWith(ALIAS_PREFIX)) snapshot.aliases.set(name.slice(ALIAS_PREFIX.length), value);
    else histories.set(name, value);
  }
  return { snapshot, histories };
}

export async function confirm(io: Io, question: string): Promise<boolean> {
  if (!io.interactive) return false;
  return /^y(es)?$/i.test((await io.ask(`${question} [y/N] `)).trim());
}

export function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, 1);
  }
}

export function safeUser(): string {
  try {
    return userInfo().username || "unknown";
  } catch {
    return "unknown";
  }
}

/** The real terminal. */
export function nodeIo(): Io {
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
    ask: async (question) => {
      const prompt = createInterface({ input: process.stdin, output: process.stdout });
      try {
        return await prompt.question(question);
      } finally {
        prompt.close();
      }
    },
    now: () => new Date(),
  };
}
