/**
 * The refresh's pure half: every shard's (tool, model) sums merged into the
 * levels one learned value keeps (tenant, tool, tool × model, and p per
 * tool × size band).
 */

import { SIZE_BANDS } from "../../gate";
import type { ToolModelSums } from "../../ledger";
import type { LearnedValue } from "../../storage";
import { dict, own } from "../../storage/rules";
import { addSums, emptySums } from "..";

/**
 * The tenant's levels from its shards' rows. A decision without a tool
 * counts at the tenant level only.
 *
 * @example
 * mergeLevels([{ tool: "read_file", model: "claude-opus-4-6", sums }]).tools.read_file.models["claude-opus-4-6"] // sums
 */
export function mergeLevels(rows: readonly ToolModelSums[]): Pick<LearnedValue, "tenant_sums" | "tools"> {
  let tenantSums = emptySums();
  const tools: LearnedValue["tools"] = dict();
  for (const { tool, model, sums, bands } of rows) {
    tenantSums = addSums(tenantSums, sums);
    if (tool === null) continue;
    let entry = own(tools, tool);
    if (entry === undefined) tools[tool] = entry = { sums: emptySums(), models: dict() };
    entry.sums = addSums(entry.sums, sums);
    entry.models[model] = addSums(own(entry.models, model) ?? emptySums(), sums);
    for (const band of SIZE_BANDS) {
      const b = bands?.[band];
      if (b === undefined) continue;
      entry.bands ??= {};
      const held = entry.bands[band];
      entry.bands[band] = { p_n: (held?.p_n ?? 0) + b.p_n, p_r: (held?.p_r ?? 0) + b.p_r };
    }
  }
  return { tenant_sums: tenantSums, tools };
}
