import { describe, expect, it } from "vitest";
import { UNNAMED_AS } from "../../scripts/replay/bench";
import { transcripts } from "../../scripts/replay/cli";
import { corpusDir, corpusRows } from "../../scripts/replay/corpus";
import { readTranscript } from "../../scripts/replay/read";
import {
  fitSizes,
  keepEverything,
  onEntry,
  parseTranscript,
  priceBook,
  pricedCalls,
  simulate,
  type Trace,
  traceTtl,
} from "../../src/replay";

const CORPUS = corpusDir();

/** What stubbing exactly these outputs on entry saves, and keep-everything's bill. */
function savingOf(trace: Trace, prices: ReturnType<typeof priceBook>, ids: readonly number[]) {
  const sizes = fitSizes(trace);
  const ttl = traceTtl(trace);
  const priced = pricedCalls(trace, prices);
  const chosen = new Set(ids);
  const keep = simulate(trace, sizes, prices, ttl, keepEverything().start(), "cache_aware", { priced });
  const policy = onEntry("these", {}, (_s, id) => (chosen.has(id) ? 200 : null));
  const bill = simulate(trace, sizes, prices, ttl, policy.start(), "cache_aware", { priced });
  return { saving: keep.cost - bill.cost, keep };
}

describe.skipIf(CORPUS === null)("stubs on real files whose history and record agree", () => {
  it("save together what each saves alone, summed", async () => {
    const prices = priceBook(corpusRows());
    let checked = 0;
    for (const path of transcripts([CORPUS!], [])) {
      if (!path.includes("/claude-code/") || checked >= 12) continue;
      const trace = parseTranscript((await readTranscript(path)).text, path, undefined, { model: UNNAMED_AS }).trace;
      if (trace === null || trace.calls.some((c) => c.usage === null)) continue;
      // Four of the largest outputs that entered after the first call: stubs whose positions the record prices.
      const sizes = fitSizes(trace);
      const outputs = trace.parts
        .flatMap((p, id) => (p.kind === "tool_output" ? [id] : []))
        .sort((a, b) => sizes.tokens[b]! - sizes.tokens[a]!)
        .slice(0, 4);
      if (outputs.length < 2) continue;
      const together = savingOf(trace, prices, outputs);
      if (together.keep.aligned.calls > 0) continue;
      const alone = outputs.reduce((sum, id) => sum + savingOf(trace, prices, [id]).saving, 0);
      // A long-context tier crossed by one stub and not another is the one honest non-linearity: 0.1% of the bill.
      expect(Math.abs(together.saving - alone), path).toBeLessThan(1e-3 * together.keep.cost);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });
});
