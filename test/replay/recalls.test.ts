import { describe, expect, it } from "vitest";
import {
  detectRecalls,
  keepEverything,
  observationMask,
  priceBook,
  recallAfter,
  replayTrace,
  targetOf,
  TraceBuilder,
  type TraceReplay,
} from "../../src/replay";

const LINE = "def compute_checksum_for_module_1(payload, seed=1):";
const t0 = Date.parse("2026-11-01T10:00:00Z");
const prices = priceBook({ m: { input: 10, output: 50, cache_read: 1, cache_write: 12.5, provider: "anthropic" } });

/** Six calls: a file read, a listing, the file read again, the line quoted, an identifier quoted. */
function session() {
  const b = new TraceBuilder("claude-code", "recalls");
  let call = 0;
  const next = () => b.call("m", t0 + 60_000 * call, null, call++);
  const tool = (name: string, id: string, args: object, output: string) => {
    b.add({ kind: "tool_call", text: JSON.stringify(args), tool: name, call_id: id });
    return b.add({ kind: "tool_output", text: output, call_id: id });
  };
  b.add({ kind: "user", text: "Fix the checksum." });
  next();
  const o0 = tool("Read", "c0", { file_path: "src/a.py" }, `${LINE}\n    return checksum_v2_table[seed]`);
  next();
  b.add({ kind: "assistant", text: "Listing the folder." });
  const o1 = tool("Bash", "c1", { command: "ls -la" }, "a.py\nb.py\nshared_name_123");
  next();
  const o2 = tool("Read", "c2", { file_path: "src/a.py" }, "shared_name_123 again");
  next();
  b.add({ kind: "assistant", text: `The function is:\n${LINE}` });
  tool("Bash", "c3", { command: "ls -la" }, "a.py\nb.py");
  next();
  b.add({ kind: "assistant", text: "It reads checksum_v2_table; shared_name_123 is not unique." });
  next();
  return { trace: b.finish(), o0, o1, o2 };
}

describe("recall detection", () => {
  it("finds each rule at the call whose answer showed the need", () => {
    const { trace, o0, o1, o2 } = session();
    const { byPart } = detectRecalls(trace);
    expect(byPart.get(o0)).toEqual([
      { call: 2, rule: "same_file" },
      { call: 3, rule: "quoted_line" },
      { call: 4, rule: "quoted_identifier" },
    ]);
    expect(byPart.get(o1)).toEqual([{ call: 3, rule: "same_command" }]);
    // An identifier in two outputs is not distinctive of either.
    expect(byPart.get(o2)).toBeUndefined();
  });

  it("notes every later read of a file read a hundred times against each earlier read, up to the cap of 32", () => {
    const b = new TraceBuilder("claude-code", "rereads");
    b.add({ kind: "user", text: "Keep reading it." });
    const outputs: number[] = [];
    for (let i = 0; i < 100; i++) {
      b.call("m", t0 + 1_000 * i, null, i);
      b.add({ kind: "tool_call", text: JSON.stringify({ file_path: "src/a.py" }), tool: "Read", call_id: `r${i}` });
      outputs.push(b.add({ kind: "tool_output", text: `read ${i}`, call_id: `r${i}` }));
    }
    b.call("m", t0 + 100_000, null, 100);
    const { byPart } = detectRecalls(b.finish());
    // Read i's call is answered at call i; the reads after it are its detections, the first 32 kept.
    expect(byPart.get(outputs[0]!)!.map((d) => d.call)).toEqual(Array.from({ length: 32 }, (_, k) => k + 1));
    expect(byPart.get(outputs[90]!)!.map((d) => d.call)).toEqual([91, 92, 93, 94, 95, 96, 97, 98, 99]);
    expect(byPart.get(outputs[99]!)).toBeUndefined();
    expect([...byPart.values()].every((list) => list.every((d) => d.rule === "same_file"))).toBe(true);
  });

  it("counts a recall only after the output was stubbed", () => {
    const { trace, o0 } = session();
    const list = detectRecalls(trace).byPart.get(o0);
    expect(recallAfter(list, 3)).toEqual({ call: 3, rule: "quoted_line" });
    expect(recallAfter(list, 5)).toBeNull();
  });

  it("reads files from a tool's arguments and from a command line", () => {
    expect(targetOf('{"file_path":"/src/app.ts"}').files).toEqual(["/src/app.ts"]);
    expect(targetOf('{"command":["bash","-lc","sed -n 1,40p src/app.py"]}').files).toEqual(["src/app.py"]);
    expect(targetOf("grep -n foo lib/util.js").files).toEqual(["lib/util.js"]);
  });

  it("charges no recall for a re-read or re-run: the transcript already pays for it under every policy", () => {
    const r = replayTrace(session().trace, prices, [
      keepEverything(),
      observationMask({ keep_last: 0 }),
    ]) as TraceReplay;
    const mask = r.policies[1]!;
    expect(mask.stubbed).toBe(4);
    // Each rule's finds are reported; the re-read of src/a.py and the second `ls -la` are charged nothing.
    expect(mask.recalls).toEqual({
      detected: 0,
      pessimistic: 4,
      by_rule: {},
      found_by_rule: { same_file: 1, same_command: 1 },
    });
    expect(mask.decomposition.recall_hops_usd).toBe(0);
    expect(mask.tools).toEqual({ Read: { stubbed: 2, recalls: 0 }, Bash: { stubbed: 2, recalls: 0 } });
  });

  it("charges a recall where a later answer quotes a line only the stubbed output held, never fetched again", () => {
    const b = new TraceBuilder("claude-code", "quoted");
    b.add({ kind: "user", text: "Find the checksum." });
    b.call("m", t0, null, 0);
    b.add({ kind: "tool_call", text: '{"command":"grep -rn checksum ."}', tool: "Bash", call_id: "g" });
    b.add({ kind: "tool_output", text: `src/a.py\n${LINE}`, call_id: "g" });
    b.call("m", t0 + 60_000, null, 1);
    b.add({ kind: "assistant", text: "Looking around." });
    b.call("m", t0 + 120_000, null, 2);
    b.add({ kind: "assistant", text: `The culprit:\n${LINE}` });
    b.call("m", t0 + 180_000, null, 3);
    const r = replayTrace(b.finish(), prices, [keepEverything(), observationMask({ keep_last: 0 })]) as TraceReplay;
    const mask = r.policies[1]!;
    expect(mask.recalls).toEqual({
      detected: 1,
      pessimistic: 1,
      by_rule: { quoted_line: 1 },
      found_by_rule: { quoted_line: 1 },
    });
    expect(mask.decomposition.recall_hops_usd).toBeGreaterThan(0);
  });
});

describe("priors learned from the session", () => {
  it("counts p, h and q per tool and per size band, in the learner's shape", () => {
    const r = replayTrace(session().trace, prices, [keepEverything()]) as TraceReplay;
    // Read: two outputs, the first read again (a detection, not a recall: one definition, as replay
    // charges it); in the history for 5 and 3 calls (h² = 25 + 9); every later call read them from the cache.
    const read = { p_n: 2, p_r: 0, h_n: 2, h_sum: 8, h_sumsq: 34, q_n: 2, q_cached: 6, q_turns: 6 };
    expect(r.priors.Read).toEqual({ sums: read, bands: { lt2k: read } });
    // p's two ends: charged recalls (none) and any detection (the re-read).
    expect(r.recall_evidence.Read).toEqual({ lt2k: { n: 2, charged: 0, detected: 1 } });
    expect(Object.keys(r.priors.Bash!.bands)).toEqual(["lt2k"]);
  });
});

describe("tools named like built-in object properties", () => {
  it("count as any other tool, in the per-tool table and the priors", () => {
    const b = new TraceBuilder("claude-code", "names");
    b.add({ kind: "user", text: "go" });
    b.call("m", t0, null, 0);
    for (const [k, name] of ["constructor", "__proto__", "toString", "hasOwnProperty"].entries()) {
      b.add({ kind: "tool_call", text: `{"k":${k}}`, tool: name, call_id: `c${k}` });
      b.add({ kind: "tool_output", text: `out ${k}`, call_id: `c${k}` });
      b.call("m", t0 + 1_000 * (k + 1), null, k + 1);
    }
    const r = replayTrace(b.finish(), prices, [keepEverything(), observationMask({ keep_last: 0 })]) as TraceReplay;
    expect(Object.keys(r.tools).sort()).toEqual(["__proto__", "constructor", "hasOwnProperty", "toString"]);
    expect(r.tools["__proto__"]).toEqual({ outputs: 1, tokens: expect.any(Number), recalled: 0 });
    expect(Object.keys(r.priors).sort()).toEqual(["__proto__", "constructor", "hasOwnProperty", "toString"]);
    expect(r.policies[1]!.tools["constructor"]).toEqual({ stubbed: 1, recalls: 0 });
    expect(JSON.parse(JSON.stringify(r.priors))["__proto__"].sums.p_n).toBe(1);
  });
});
