/**
 * @module scripts/pricing/import-command
 *
 * `import-litellm`: LiteLLM's price file converted to seed rows, printed,
 * written to a file, or merged into a seed (`--into`, with `--prune`).
 *
 * @example
 * importRows("model_prices.json", { models: "gpt-5" }, nodeIo()); // prints the converted rows
 */
import { resolve } from "node:path";
import { writeFileSync } from "node:fs";
import { CliError, loadSeed, readJson, type Flags, type Io } from "./cli-io";
import { importLitellm, litellmSource, type ImportResult } from "./litellm";
import { mergeSeeds, type Prune } from "./merge";
import { validateSeed } from "./seed";

/**
 * Runs `import-litellm FILE` and returns its exit code.
 *
 * @example
 * process.exitCode = importRows("model_prices.json", { provider: "anthropic" }, nodeIo());
 */
export function importRows(file: string | undefined, flags: Flags, io: Io): number {
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
