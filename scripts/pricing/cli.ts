/**
 * The ops CLI: `npm run pricing -- <command> [--local | --remote] [--env NAME]`.
 *
 *   validate [FILE]          schema and sanity checks; exit 0 valid, 1 not
 *   diff [--seed FILE]       the seed file against the target KV; exit 0 same, 1 different
 *   seed [--seed FILE]       write only what changed (asks, or --yes; --prune deletes rows not in the seed; --missing-only writes only what KV lacks)
 *   export [FILE]            the target KV's rows in the seed file's format
 *   import-litellm FILE (--models a,b | --provider NAME[,NAME]) [--out FILE | --into SEED [--prune [--only-covered]]]
 *
 * Nothing is written by surprise: with neither --local nor --remote the CLI
 * names the target it would write and asks; without a terminal to ask on,
 * it refuses unless --yes is given with an explicit target.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { userInfo } from "node:os";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { parseHistory, withEntry } from "../../src/store/history";
import { ALIAS_PREFIX, historyKey, PRICING_PREFIX, pricingKey } from "../../src/store/keys";
import { definedEnvironments, describeTarget, openKv, type Kv, type Target } from "./kv";
import { importLitellm, litellmSource, type ImportResult } from "./litellm";
import { mergeSeeds, type Prune } from "./merge";
import { diffSeed, exportSeed, formatDiff, planSeed, validateSeed, type KvSnapshot } from "./seed";
import type { PricingSeed } from "../../src/store/schema";

const USAGE = `usage: npm run pricing -- <command> [options]

commands:
  validate [FILE]                 check a seed file (default pricing.seed.json); --strict fails on warnings
  diff [--seed FILE]              compare the seed file with the target KV, row by row
  seed [--seed FILE] [--yes] [--prune] [--missing-only]
                                  write what changed to the target KV (asks first unless --yes);
                                  --missing-only writes only what it lacks and names what it kept
  export [FILE]                   write the target KV's rows as a seed file (default: stdout)
  import-litellm FILE (--models a,b | --provider NAME[,NAME]) [--out FILE] [--commit SHA | --source URL]
                                  convert LiteLLM's model_prices_and_context_window.json rows;
                                  dated names become aliases; rows say where they came from
                                  (the commit, or the file's path)
    --into SEED [--prune [--only-covered]]
                                  merge into SEED: keep its rows and aliases, report conflicts;
                                  --prune drops its rows of the imported providers that the
                                  file lacks (refused unless the file covers every provider
                                  in SEED, or --only-covered limits it to those it covers)

target (diff, seed, export):
  --local | --remote              local (wrangler's .wrangler/state) or the deployed namespace
  --env NAME                      a wrangler environment the config defines (required with --remote)
  --persist-to DIR                local state directory (as wrangler's --persist-to)
  --config FILE                   wrangler config file (default wrangler.toml)`;

/** Exit codes: 0 ok (or no difference), 1 invalid (or different), 2 usage or failure. */
class CliError extends Error {
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

const options = {
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

type Flags = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>["values"];

/**
 * Runs one command and returns its exit code.
 *
 * @example
 * process.exitCode = await main(["validate", "pricing.seed.json"], nodeIo());
 */
export async function main(argv: string[], io: Io): Promise<number> {
  try {
    const { values: flags, positionals } = parseArgs({ args: argv, options, allowPositionals: true });
    const [command, ...rest] = positionals;
    if (flags.help || command === undefined) {
      io.out(USAGE);
      return command === undefined && !flags.help ? 2 : 0;
    }
    switch (command) {
      case "validate":
        return validate(rest[0] ?? "pricing.seed.json", flags, io);
      case "diff":
        return await diff(flags, io);
      case "seed":
        return await seed(flags, io);
      case "export":
        return await exportRows(rest[0], flags, io);
      case "import-litellm":
        return importRows(rest[0], flags, io);
      default:
        throw new CliError(`unknown command ${command}\n\n${USAGE}`);
    }
  } catch (error) {
    io.err(`pricing: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof CliError ? error.code : 2;
  }
}

const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

function validate(file: string, flags: Flags, io: Io): number {
  const verdict = validateSeed(readJson(file), io.now());
  for (const error of verdict.errors) io.err(`error   ${error}`);
  for (const warning of verdict.warnings) io.err(`warning ${warning}`);
  const failed = verdict.errors.length > 0 || (flags.strict === true && verdict.warnings.length > 0);
  const models = verdict.seed === null ? 0 : Object.keys(verdict.seed.models).length;
  io.out(
    failed
      ? `${file}: invalid (${counted(verdict.errors.length, "error")}, ${counted(verdict.warnings.length, "warning")})`
      : `${file}: valid, ${counted(models, "model")} (${counted(verdict.warnings.length, "warning")})`,
  );
  return failed ? 1 : 0;
}

async function diff(flags: Flags, io: Io): Promise<number> {
  const seedFile = loadSeed(flags, io);
  const target = readTarget(flags, io);
  const { snapshot } = await using(target, read);
  const lines = formatDiff(diffSeed(seedFile, snapshot));
  io.out(lines.length === 0 ? `no differences: ${describeTarget(target)} matches the seed` : lines.join("\n"));
  return lines.length === 0 ? 0 : 1;
}

async function seed(flags: Flags, io: Io): Promise<number> {
  const seedFile = loadSeed(flags, io);
  const explicit = flags.local === true || flags.remote === true;
  const target = readTarget(flags, io);
  // Refuse before reading anything: no terminal, no --yes, no write.
  if (!io.interactive && !(flags.yes === true && explicit)) {
    throw new CliError(
      `refusing to write ${describeTarget(target)} without confirmation: ` +
        (explicit ? "pass --yes" : "name the target with --local or --remote, and pass --yes"),
    );
  }
  if (
    !explicit &&
    !(await confirm(io, `No target given: this would write ${describeTarget(target)}. Use that target?`))
  ) {
    throw new CliError("nothing written");
  }
  return using(target, (kv) => write(kv, target, seedFile, flags, io));
}

async function write(kv: Kv, target: Target, seedFile: PricingSeed, flags: Flags, io: Io): Promise<number> {
  const { snapshot, histories } = await read(kv);
  const changes = diffSeed(seedFile, snapshot);
  const plan = planSeed(changes, snapshot, {
    prune: flags.prune === true,
    missingOnly: flags["missing-only"] === true,
  });
  if (plan.kept.length > 0) {
    // Said loudly: a restart must never undo a price changed since seeding, nor hide that it differs.
    io.err(
      `pricing: kept ${plan.kept.length} key(s) that differ from the seed (changed since seeding, e.g. through the admin API): ${plan.kept.join(", ")}`,
    );
    io.err("pricing: `npm run seed:local` resets them to the seed");
  }
  if (plan.puts.length === 0 && plan.deletes.length === 0) {
    io.out(`nothing to write: ${describeTarget(target)} already matches the seed`);
    return 0;
  }
  io.out(formatDiff(changes).join("\n"));
  const summary = `${plan.puts.length} key(s) to write and ${plan.deletes.length} to delete in ${describeTarget(target)}`;
  if (flags.yes !== true && !(await confirm(io, `${summary}. Go ahead?`))) throw new CliError("nothing written");

  const by = `cli:${safeUser()}`;
  const at = io.now();
  const historyPuts = plan.changes.map((change) => {
    const subject = pricingKey(change.model);
    const doc = parseHistory(histories.get(historyKey(subject)) ?? null);
    if (doc === undefined) throw new CliError(`${historyKey(subject)} is corrupt; fix or delete it first`);
    const next = withEntry(
      doc,
      { action: change.after === null ? "delete" : "put", by, before: change.before, after: change.after },
      at,
    );
    return { key: historyKey(subject), value: JSON.stringify(next.doc) };
  });
  await kv.putMany([...plan.puts, ...historyPuts]);
  await kv.deleteMany(plan.deletes);
  io.out(
    `wrote ${plan.puts.length} key(s) and deleted ${plan.deletes.length} in ${describeTarget(target)}; history recorded as ${by}`,
  );
  return 0;
}

async function exportRows(file: string | undefined, flags: Flags, io: Io): Promise<number> {
  const target = readTarget(flags, io);
  const { seed: exported, invalid } = exportSeed((await using(target, read)).snapshot);
  for (const row of invalid) io.err(`pricing: left out ${row.model}, its KV row is invalid: ${row.problem}`);
  const text = `${JSON.stringify(exported, null, 2)}\n`;
  if (file === undefined) io.out(text.trimEnd());
  else {
    writeFileSync(file, text);
    io.err(`exported ${Object.keys(exported.models).length} models from ${describeTarget(target)} to ${file}`);
  }
  return invalid.length === 0 ? 0 : 1;
}

function importRows(file: string | undefined, flags: Flags, io: Io): number {
  if (file === undefined)
    throw new CliError(
      "import-litellm needs the LiteLLM file: import-litellm FILE --models a,b | --provider NAME[,NAME]",
    );
  if ((flags.models === undefined) === (flags.provider === undefined))
    throw new CliError("give exactly one of --models a,b or --provider NAME[,NAME]");
  if (flags.source !== undefined && flags.commit !== undefined)
    throw new CliError("give --source or --commit, not both");
  if (flags.prune === true && flags.into === undefined) throw new CliError("--prune works on the seed named by --into");
  if (flags["only-covered"] === true && flags.prune !== true) throw new CliError("--only-covered qualifies --prune");
  const list = (value: string) =>
    value
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "");
  const selection =
    flags.models !== undefined ? { models: list(flags.models) } : { providers: list(flags.provider as string) };
  const source =
    flags.source ?? litellmSource(flags.commit !== undefined ? { commit: flags.commit } : { path: resolve(file) });
  const result = importLitellm(readJson(file), selection, source);
  for (const note of result.notes) io.err(`note    ${note}`);
  for (const warning of result.warnings) io.err(`warning ${warning}`);
  if (flags.into !== undefined) return mergeRows(flags.into, result, "models" in selection, flags, io);

  const text = `${JSON.stringify(result.seed, null, 2)}\n`;
  if (flags.out === undefined) io.out(text.trimEnd());
  else writeFileSync(flags.out, text);
  const count = Object.keys(result.seed.models).length;
  io.err(
    `converted ${count} models${flags.out === undefined ? "" : ` into ${flags.out}`}; review them, add verified_at, then merge into pricing.seed.json`,
  );
  return count === 0 ? 1 : 0;
}

// --into: keep the seed's rows, add what it lacks, report what disagrees.
function mergeRows(into: string, result: ImportResult, byName: boolean, flags: Flags, io: Io): number {
  const existing = loadSeed({ ...flags, seed: into }, io);
  let prune: Prune = false;
  if (flags.prune === true) {
    if (byName)
      throw new CliError(
        "--prune needs whole providers (--provider), not --models: a list of names covers no provider",
      );
    const seedProviders = [
      ...new Set(Object.values(existing.models).flatMap((row) => (row.provider === undefined ? [] : [row.provider]))),
    ];
    const uncovered = seedProviders.filter((provider) => !result.providers.includes(provider)).sort();
    if (uncovered.length > 0 && flags["only-covered"] !== true) {
      throw new CliError(
        `refusing to prune: the file covers ${result.providers.join(", ")} but not ${uncovered.join(", ")}, whose rows would all go; ` +
          "pass --only-covered to prune only the providers the file covers",
      );
    }
    prune = { providers: result.providers };
  }
  const merged = mergeSeeds(existing, result.seed, prune);
  const verdict = validateSeed(merged.seed, io.now());
  if (verdict.seed === null) {
    for (const error of verdict.errors) io.err(`error   ${error}`);
    throw new CliError("the merged seed does not validate; nothing written", 1);
  }
  for (const conflict of merged.conflicts) io.err(`conflict ${conflict}`);
  for (const kept of merged.kept) io.err(`kept    ${kept}`);
  const target = flags.out ?? into;
  writeFileSync(target, `${JSON.stringify(merged.seed, null, 2)}\n`);
  io.out(
    `merged into ${target}: ${merged.added.length} added (${merged.added.join(", ") || "none"}), ` +
      `${merged.aliased.length} aliases added, ${merged.pruned.length} pruned${merged.pruned.length === 0 ? "" : ` (${merged.pruned.join(", ")})`}, ` +
      `${merged.conflicts.length} conflicts (the seed's side kept)`,
  );
  return 0;
}

function readTarget(flags: Flags, io: Io): Target {
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
function checkEnv(flags: Flags): void {
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

function loadSeed(flags: Flags, io: Io) {
  const file = flags.seed ?? "pricing.seed.json";
  const verdict = validateSeed(readJson(file), io.now());
  if (verdict.seed === null) {
    for (const error of verdict.errors) io.err(`error   ${error}`);
    throw new CliError(`${file} is invalid; run: npm run pricing -- validate ${file}`, 1);
  }
  return verdict.seed;
}

/** Opens the target for one piece of work and always lets go of it. */
async function using<T>(target: Target, work: (kv: Kv) => Promise<T>): Promise<T> {
  const kv = await openKv(target);
  try {
    return await work(kv);
  } finally {
    await kv.close();
  }
}

async function read(kv: Kv): Promise<{ snapshot: KvSnapshot; histories: Map<string, string | null> }> {
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

async function confirm(io: Io, question: string): Promise<boolean> {
  if (!io.interactive) return false;
  return /^y(es)?$/i.test((await io.ask(`${question} [y/N] `)).trim());
}

function readJson(file: string): unknown {
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

function safeUser(): string {
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

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  process.exitCode = await main(process.argv.slice(2), nodeIo());
}
