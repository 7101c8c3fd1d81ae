/**
 * @module scripts/replay/shares
 *
 * The benchmark's table of every policy against the hindsight oracle: each
 * policy's share of the oracle's saving at both ends of the recall range
 * (the recalls detected; every stubbed output recalled once), on the whole
 * corpus and per format, and the files where it costs more than keeping
 * everything.
 *
 * @example
 * out.push(...oracleShares(replayed, names, formats));
 */
import { ORACLE, ORACLE_ALL_RECALLED } from "../../src/replay";
import type { CorpusFile } from "./corpus";
import type { LostDecision } from "./learned";

const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
const pct = (x: number) => `${x > 0 ? "+" : x < 0 ? "−" : ""}${Math.abs(x).toFixed(1)}%`;

/** Sums over files: keep-everything, and each policy's cost at both ends and its losing files. */
export function totals(files: readonly CorpusFile[], name: string) {
  let keep = 0;
  let cost = 0;
  let pessimistic = 0;
  let worse = 0;
  for (const f of files) {
    const p = f.policies.find((q) => q.name === name);
    if (p === undefined) continue;
    keep += f.keep_usd;
    cost += p.cost_usd;
    pessimistic += p.cost_pessimistic_usd;
    if (p.cost_usd > f.keep_usd * (1 + 1e-9) + 1e-12) worse++;
  }
  return { keep, cost, pessimistic, worse, files: files.length };
}

/**
 * A share of the oracle's saving, or "—" where the oracle saves nothing at that end.
 *
 * @example
 * share(30, 40) // "75%"
 */
export function share(saving: number, oracleSaving: number): string {
  return oracleSaving > 1e-12 ? `${((100 * saving) / oracleSaving).toFixed(0)}%` : "—";
}

/**
 * The markdown section: every policy's saving and share of the oracle's, per group of files.
 *
 * @example
 * oracleShares(replayed, names, ["claude-code", "mini-swe-agent"]).join("\n")
 */
export function oracleShares(
  files: readonly CorpusFile[],
  names: readonly string[],
  formats: readonly string[],
): string[] {
  const out: string[] = [];
  out.push("## Against the hindsight oracle");
  out.push("");
  out.push(
    "`oracle` stubs an output on entry exactly when stubbing it lowers the file's cost under replay's own bill and " +
      "recall rules (docs/replay.md § The oracle): the ceiling, never a policy a user can run. Each policy's saving " +
      "against keeping everything, and its share of the ceiling's at both ends of the recall range: the recalls " +
      "the transcript shows (detected; the ceiling is `oracle`) and every stubbed output recalled once (all recalled; " +
      "the ceiling is `oracle_all_recalled`, the same hindsight with every stub's hop charged). `gate_learned` is the gate as a tenant runs it (docs/replay.md § gate_learned).",
  );
  out.push("");
  const groups: [string, readonly CorpusFile[]][] = [
    ["all", files],
    ...formats.map((f) => [f, files.filter((x) => (x.format ?? "unparsed") === f)] as [string, CorpusFile[]]),
  ];
  out.push(
    row(["files", "policy", "detected", "share of oracle", "all recalled", "share of oracle", "files costing more"]),
  );
  out.push(row(["---", "---", "---:", "---:", "---:", "---:", "---:"]));
  for (const [label, group] of groups) {
    if (group.length === 0) continue;
    const o = totals(group, ORACLE);
    const a = totals(group, ORACLE_ALL_RECALLED);
    if (o.keep === 0) continue;
    const ranked = names
      .filter((n) => n !== "keep_everything")
      .map((n) => ({ n, t: totals(group, n) }))
      .sort((a, b) => a.t.cost - b.t.cost);
    for (const { n, t } of ranked)
      out.push(
        row([
          `${label} (${group.length})`,
          n === ORACLE || n === ORACLE_ALL_RECALLED ? `**\`${n}\`**` : `\`${n}\``,
          pct((100 * (t.cost - t.keep)) / t.keep),
          share(t.keep - t.cost, o.keep - o.cost),
          pct((100 * (t.pessimistic - t.keep)) / t.keep),
          share(t.keep - t.pessimistic, a.keep - a.pessimistic),
          `${t.worse} (${((100 * t.worse) / t.files).toFixed(1)}%)`,
        ]),
      );
  }
  out.push("");
  return out;
}

/**
 * The markdown table of the files where `gate_learned` costs more than keeping everything, each with
 * the stub that lost most and what the gate knew when it made it.
 *
 * @example
 * lossTable(await explainLosses(files, rows, priorsFor, "gpt-4o"), corpusDir)
 */
export function lossTable(losses: readonly LostDecision[], corpus: string): string[] {
  const out: string[] = [];
  out.push("## Where `gate_learned` costs more than keeping everything");
  out.push("");
  out.push(
    `${losses.length} files. For each, the stub whose hindsight saving was lowest: the call it entered at, the horizon ` +
      "range the gate priced (the remaining calls' lower quartile to their mean, by the survival estimate at that call index) against the calls that carried it, the p range it " +
      "decided on, and the recall replay charged (docs/replay.md § When gate_learned loses).",
  );
  out.push("");
  if (losses.length === 0) return out;
  out.push(
    row([
      "file",
      "kind",
      "calls",
      "difference",
      "stubs",
      "losing stub: tool, tokens",
      "at call",
      "horizon priced",
      "calls that carried it",
      "p range",
      "recall charged at",
      "its hindsight saving",
    ]),
  );
  out.push(row(["---", "---", "---:", "---:", "---:", "---", "---:", "---:", "---:", "---", "---:", "---:"]));
  for (const l of losses) {
    const w = l.worst;
    out.push(
      row([
        `\`${l.path.slice(corpus.length + 1)}\``,
        l.kind,
        l.calls,
        pct((100 * (l.learned_usd - l.keep_usd)) / l.keep_usd),
        l.stubbed,
        `${w.tool}, ${Math.round(w.tokens)}`,
        w.call,
        `${Math.trunc(w.horizon_range[0])}–${Math.trunc(w.horizon)}`,
        w.carried,
        `${w.recall_probability_range[0].toFixed(3)}–${w.recall_probability_range[1].toFixed(3)}`,
        w.recalled_at === null ? "—" : `call ${w.recalled_at}`,
        `$${w.hindsight_usd.toFixed(4)}`,
      ]),
    );
  }
  out.push("");
  return out;
}

/**
 * A document with the lines between its `<!-- name:start -->` and
 * `<!-- name:end -->` markers replaced: how the benchmark keeps a table in a
 * hand-written page current. A document without both markers is an error,
 * never silently left stale.
 *
 * @example
 * spliceGenerated("a\n<!-- losses:start -->\nold\n<!-- losses:end -->\nb", "losses", ["new"])
 * // "a\n<!-- losses:start -->\nnew\n<!-- losses:end -->\nb"
 */
export function spliceGenerated(doc: string, name: string, lines: readonly string[]): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`no ${start} … ${end} markers to write between`);
  return `${doc.slice(0, i + start.length)}\n${lines.join("\n")}\n${doc.slice(j)}`;
}
