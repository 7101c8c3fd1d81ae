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
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseHistory, withEntry } from "../../src/storage/schemas/history";
import { historyKey, pricingKey } from "../../src/storage/rules/keys";
import type { PricingSeed } from "../../src/storage/schemas/schema";
import {
  CliError,
  confirm,
  type Flags,
  type Io,
  loadSeed,
  nodeIo,
  options,
  read,
  readJson,
  readTarget,
  safeUser,
  using,
} from "./cli-io";
import { importRows } from "./import-command";
import { describeTarget, type Kv, type Target } from "./kv";
import { diffSeed, exportSeed, formatDiff, planSeed, validateSeed } from "./seed";

export { type Io, nodeIo } from "./cli-io";

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

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  process.exitCode = await main(process.argv.slice(2), nodeIo());
}
