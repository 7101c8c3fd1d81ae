/**
 * The per-tool verdicts' (session, tool) pairs packed per tool, in report
 * order (docs/design/ledger.md §4.2: the bill's `at`, ties by session id): what a shard
 * answers and the report merges, as typed arrays instead of one object per
 * pair. Pure.
 */
import type { ToolSessionRow } from "../model";

/** One tool's pairs in report order: each pair's bill time, cost, covariate, arm (1 held out) and session id ("\n"-joined). */
export interface ToolPairList {
  tool_name: string;
  at: Float64Array;
  cost: Float64Array;
  /** The session's reported covariate; NaN where it reported none. */
  covariate: Float64Array;
  held: Uint8Array;
  /** The session ids, joined by "\n" (a session id never holds one). */
  ids: string;
}

/**
 * A covariate as a packed cell: NaN for none (a reported covariate is a finite number).
 *
 * @example
 * covariateCell(null) // NaN
 */
export const covariateCell = (x: number | null | undefined): number => (x === null || x === undefined ? Number.NaN : x);
/**
 * A packed cell as a row's covariate: null for none.
 *
 * @example
 * covariateOf(Number.NaN) // null
 */
export const covariateOf = (cell: number): number | null => (Number.isNaN(cell) ? null : cell);

const byReportOrder = (a: ToolSessionRow, b: ToolSessionRow) =>
  a.at - b.at || (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0);

/** A list from rows already in report order. */
function listOf(tool_name: string, rows: readonly ToolSessionRow[]): ToolPairList {
  return {
    tool_name,
    at: Float64Array.from(rows, (r) => r.at),
    cost: Float64Array.from(rows, (r) => r.cost),
    covariate: Float64Array.from(rows, (r) => covariateCell(r.covariate)),
    held: Uint8Array.from(rows, (r) => (r.treated ? 0 : 1)),
    ids: rows.map((r) => r.session_id).join("\n"),
  };
}

/**
 * Rows as per-tool lists, each in report order, the tools ordered as
 * `orderTools` orders them.
 *
 * @example
 * packRows(rows)[0] // { tool_name: "grep", at: Float64Array [...], cost: [...], held: [...], ids: "s1\ns2" }
 */
export function packRows(rows: readonly ToolSessionRow[]): ToolPairList[] {
  const tools = new Map<string, ToolSessionRow[]>();
  for (const row of [...rows].sort(byReportOrder)) {
    const list = tools.get(row.tool_name);
    if (list === undefined) tools.set(row.tool_name, [row]);
    else list.push(row);
  }
  return orderTools([...tools].map(([tool, list]) => listOf(tool, list)));
}

/**
 * The lists as rows (the breaker's form), tool by tool.
 *
 * @example
 * rowsOfPairs(packRows(rows)) // the same rows, grouped by tool, each in report order
 */
export function rowsOfPairs(lists: readonly ToolPairList[]): ToolSessionRow[] {
  return lists.flatMap((l) => {
    const ids = l.at.length === 0 ? [] : l.ids.split("\n");
    return Array.from(l.at, (at, i) => {
      const row: ToolSessionRow = {
        tool_name: l.tool_name,
        session_id: ids[i] as string,
        at,
        treated: l.held[i] === 0,
        cost: l.cost[i] as number,
      };
      // Only a reported one is set, so rows without are as they always were.
      const covariate = covariateOf(l.covariate[i] as number);
      if (covariate !== null) row.covariate = covariate;
      return row;
    });
  });
}

const firstId = (l: ToolPairList) => {
  const end = l.ids.indexOf("\n");
  return end < 0 ? l.ids : l.ids.slice(0, end);
};

/**
 * Tools in the order their first pairs come in report order (ties: by
 * tool name): the order of the report's `tools` and of the tenant-wide sum.
 * Empty lists are dropped.
 *
 * @example
 * orderTools([grep, shell]) // shell first when its first bill came first
 */
export function orderTools(lists: readonly ToolPairList[]): ToolPairList[] {
  const key = new Map(lists.map((l) => [l, firstId(l)]));
  return lists
    .filter((l) => l.at.length > 0)
    .sort((a, b) => {
      const x = key.get(a) as string;
      const y = key.get(b) as string;
      return (
        (a.at[0] as number) - (b.at[0] as number) ||
        (x < y ? -1 : x > y ? 1 : a.tool_name < b.tool_name ? -1 : a.tool_name > b.tool_name ? 1 : 0)
      );
    });
}

/** Two lists of one tool as one, in report order (a tie on both keys keeps `a`'s first). */
function mergeTwo(a: ToolPairList, b: ToolPairList): ToolPairList {
  const [ai, bi] = [a.ids.split("\n"), b.ids.split("\n")];
  const n = a.at.length + b.at.length;
  const out = {
    tool_name: a.tool_name,
    at: new Float64Array(n),
    cost: new Float64Array(n),
    covariate: new Float64Array(n),
    held: new Uint8Array(n),
  };
  const ids: string[] = [];
  let [i, j] = [0, 0];
  for (let k = 0; k < n; k++) {
    const takeA =
      j >= b.at.length ||
      (i < a.at.length &&
        ((a.at[i] as number) < (b.at[j] as number) || (a.at[i] === b.at[j] && (ai[i] as string) <= (bi[j] as string))));
    const [from, at] = takeA ? [a, i++] : [b, j++];
    out.at[k] = from.at[at] as number;
    out.cost[k] = from.cost[at] as number;
    out.covariate[k] = from.covariate[at] as number;
    out.held[k] = from.held[at] as number;
    ids.push((takeA ? ai : bi)[at] as string);
  }
  return { ...out, ids: ids.join("\n") };
}

/**
 * Every shard's lists as the tenant's: each tool's lists merged in report
 * order (a tool in one shard only is passed through untouched), then the
 * tools ordered by `orderTools`.
 *
 * @example
 * mergePairs([shard0Lists, shard1Lists]) // one list per tool
 */
export function mergePairs(shards: readonly (readonly ToolPairList[])[]): ToolPairList[] {
  const tools = new Map<string, ToolPairList>();
  for (const lists of shards) {
    for (const list of lists) {
      if (list.at.length === 0) continue;
      const held = tools.get(list.tool_name);
      tools.set(list.tool_name, held === undefined ? list : mergeTwo(held, list));
    }
  }
  return orderTools([...tools.values()]);
}
